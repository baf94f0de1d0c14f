package engine

import (
	"strings"
	"testing"
)

// TestGeoHLLNotifications: the events of the GEO and HyperLogLog commands
// and their order, as geo.c and hyperloglog.c raise them. GEOADD's "zadd"
// comes from ZADD's code, which it runs as Redis does.
func TestGeoHLLNotifications(t *testing.T) {
	te := newTestEngine(t)
	rec := &bitEvents{}
	te.SetPublisher(rec)
	te.SetNotifyClasses(NotifyKeyevent | NotifyAll)
	for _, c := range [][]string{
		{"PFADD", "h", "a"},   // pfadd
		{"PFADD", "h", "a"},   // unchanged: none
		{"PFCOUNT", "h"},      // writes the cache back: no event
		{"PFMERGE", "m", "h"}, // pfadd m
		{"PFDEBUG", "TODENSE", "m"},
		{"PFADD", "n"}, // created: pfadd n
		{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
		{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"}, // geosearchstore d
		{"GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d2"},                      // georadiusstore d2
		{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "m"},    // del d
		{"GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "d2"},                  // del d2
		{"GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "d2"},                  // nothing to delete
		{"GEOPOS", "g", "Palermo"}, {"GEODIST", "g", "Palermo", "Catania"}, {"GEOHASH", "g", "Palermo"},
	} {
		te.do(c...)
	}
	want := []string{"pfadd h", "pfadd m", "pfadd n", "zadd g", "geosearchstore d", "georadiusstore d2", "del d", "del d2"}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	got := rec.got
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events %q, want %q", got, want)
	}
}
