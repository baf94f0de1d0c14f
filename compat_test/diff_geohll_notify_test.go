package compat

import "testing"

// TestDiffNotifyGeoHLL: the keyspace events of the GEO and HyperLogLog
// commands (GEOADD's are ZADD's; the STORE variants' "georadiusstore",
// "geosearchstore" or "del"; PFADD's and PFMERGE's "pfadd"; the misses of
// their read lookups), compared with redis-server's.
func TestDiffNotifyGeoHLL(t *testing.T) {
	p := newLazyExpiryPair(t)
	runNotifyCases(t, p, []notifyCase{
		{name: "geo", cmds: []any{
			"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", "GEOADD g 13.361389 38.115556 Palermo",
			"GEOADD g XX 1 1 nope", "GEOADD g CH 1 1 Palermo", "GEOADD nokey XX 1 1 a", "GEOADD g 200 1 x",
			"GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 500 km", "GEORADIUS g 15 37 500 km STORE d2",
			"GEORADIUSBYMEMBER g Catania 500 km STOREDIST d2", "GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 1 m",
			"GEORADIUS nokey 15 37 200 km STORE d2", "GEORADIUS nokey 15 37 200 km STORE d2",
			"GEOSEARCHSTORE d nokey FROMMEMBER x BYRADIUS 1 m", "GEOSEARCHSTORE d g FROMMEMBER nope BYRADIUS 1 m",
		}},
		{name: "geo reads", cmds: []any{
			"GEOADD g 13.361389 38.115556 Palermo", "GEOPOS nokey a", "GEOPOS g Palermo", "GEODIST nokey a b",
			"GEOHASH nokey a", "GEOSEARCH nokey FROMMEMBER a BYRADIUS 1 km", "GEORADIUS_RO nokey 1 1 1 km",
			"GEORADIUSBYMEMBER_RO nokey a 1 km", "GEODIST g Palermo nope",
		}},
		{name: "hll", cmds: []any{
			"PFADD h a b", "PFADD h a", "PFCOUNT h", "PFCOUNT h", "PFADD e", "PFCOUNT nokey", "PFCOUNT h nokey",
			"PFMERGE m h", "PFMERGE m2 nokey", "PFMERGE m", "PFDEBUG TODENSE m", "PFDEBUG GETREG nokey",
			"PFDEBUG ENCODING h", "SET s foo", "PFADD s a", "PFMERGE m s",
		}},
		{name: "geo hll multi eval", cmds: []any{
			"MULTI", "GEOADD g 1 1 a", "GEOSEARCHSTORE d g FROMLONLAT 1 1 BYRADIUS 1 km", "PFADD h x", "PFMERGE m h", "EXEC",
			"EVAL \"redis.call('GEOADD', KEYS[1], 2, 2, 'b'); return redis.call('PFADD', KEYS[2], 'y')\" 2 g h",
		}},
	})
}
