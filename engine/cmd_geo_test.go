package engine

import (
	"strings"
	"testing"
)

// TestGeoNotifications: the events of the GEO commands and their order, as
// geo.c raises them. GEOADD's "zadd" comes from ZADD's code, which it runs
// as Redis does.
func TestGeoNotifications(t *testing.T) {
	notificationsOf(t, [][]string{
		{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
		{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"}, // geosearchstore d
		{"GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d2"},                      // georadiusstore d2
		{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "m"},    // del d
		{"GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "d2"},                  // del d2
		{"GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "d2"},                  // nothing to delete
		{"GEOPOS", "g", "Palermo"}, {"GEODIST", "g", "Palermo", "Catania"}, {"GEOHASH", "g", "Palermo"},
	}, []string{"zadd g", "geosearchstore d", "georadiusstore d2", "del d", "del d2"})
}

// notificationsOf runs cmds with every keyspace event on and checks the
// keyevent messages they raised, in order ("event key").
func notificationsOf(t *testing.T, cmds [][]string, want []string) {
	t.Helper()
	te := newTestEngine(t)
	rec := &bitEvents{}
	te.SetPublisher(rec)
	te.SetNotifyClasses(NotifyKeyevent | NotifyAll)
	for _, c := range cmds {
		te.do(c...)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if got := rec.got; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events %q, want %q", got, want)
	}
}
