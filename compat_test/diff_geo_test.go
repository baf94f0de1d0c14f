package compat

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"
)

// Differential tests for the GEO commands: every option and error, in
// RESP2 and RESP3, inside MULTI and EVAL, and seeded random searches.

const geoSicily = "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 12.758489 38.788135 edge1 17.241510 38.788135 edge2"

func TestDiffGeo(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "geoadd", steps: steps(
			"GEOADD g 13.361389 38.115556 Palermo", "GEOADD g 13.361389 38.115556 Palermo",
			"GEOADD g 15.087269 37.502669 Catania 1 2 x", "ZRANGE g 0 -1 WITHSCORES",
			"GEOADD g NX 1 1 Palermo 3 3 y", "GEOADD g XX 2 2 Palermo 4 4 z", "GEOADD g XX CH 2 2 Palermo 5 5 x",
			"GEOADD g CH 9 9 x 9 9 w", "GEOADD g NX XX 1 1 a", "GEOADD g GT 1 1 a", "GEOADD g 1 1",
			"GEOADD g CH CH CH", "GEOADD g 1 1 a 2", "GEOADD g", "GEOADD g 1 1",
			"GEOADD g 181 0 a", "GEOADD g -180.0001 0 a", "GEOADD g 0 85.06 a", "GEOADD g 0 -85.06 a",
			"GEOADD g inf 0 a", "GEOADD g 0 -inf a", "GEOADD g 1e300 1 a", "GEOADD g 0 1 a 200 0 b",
			"GEOADD g abc 0 a", "GEOADD g 0 abc a", "GEOADD g ' 1' 0 a", "GEOADD g nan 0 a",
			"GEOADD g 180 85.05112878 n 180 -85.05112878 s -180 0 w 0 0 zero",
			"GEOADD g XX 1 1 nope", "EXISTS nokey", "GEOADD nokey XX 1 1 a", "EXISTS nokey",
			"ZRANGE g 0 -1 WITHSCORES", "OBJECT ENCODING g",
			"SET str x", "GEOADD str 1 1 a", "GEOADD str 1000 1 a",
		)},
		{name: "geopos-geohash", steps: steps(geoSicily,
			"GEOPOS Sicily Palermo Catania nope", "GEOPOS Sicily", "GEOPOS nokey a b", "GEOPOS nokey",
			"GEOHASH Sicily Palermo Catania nope edge1", "GEOHASH Sicily", "GEOHASH nokey a",
			"GEOADD g 180 85.05112878 n 180 -85.05112878 s -180 0 w 0 0 zero -0.0000001 -0.0000001 neg",
			"GEOPOS g n s w zero neg", "GEOHASH g n s w zero neg",
			"ZADD g -1 negscore 1e20 bigscore 4503599627370496 top 5 five", "GEOPOS g negscore bigscore top five",
			"GEOHASH g negscore bigscore top five", "SET str x", "GEOPOS str a", "GEOHASH str a", "GEOPOS", "GEOHASH",
		)},
		{name: "geodist", steps: steps(geoSicily,
			"GEODIST Sicily Palermo Catania", "GEODIST Sicily Palermo Catania m", "GEODIST Sicily Palermo Catania KM",
			"GEODIST Sicily Palermo Catania ft", "GEODIST Sicily Palermo Catania mi", "GEODIST Sicily Palermo Catania yd",
			"GEODIST Sicily Palermo Palermo", "GEODIST Sicily Palermo nope", "GEODIST Sicily nope Palermo km",
			"GEODIST nokey a b", "GEODIST nokey a b km", "GEODIST nokey a b yd", "GEODIST Sicily a b km x",
			"GEODIST Sicily a", "GEODIST Sicily edge1 edge2 km",
			"SET str x", "GEODIST str a b", "GEODIST str a b yd",
		)},
		{name: "georadius", steps: steps(geoSicily,
			"GEORADIUS Sicily 15 37 200 km", "GEORADIUS Sicily 15 37 200 km WITHDIST", "GEORADIUS Sicily 15 37 200 km WITHCOORD",
			"GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH", "GEORADIUS Sicily 15 37 200 km withhash",
			"GEORADIUS Sicily 15 37 200 km ASC", "GEORADIUS Sicily 15 37 200 km DESC", "GEORADIUS Sicily 15 37 200 km COUNT 1",
			"GEORADIUS Sicily 15 37 200 km COUNT 1 DESC", "GEORADIUS Sicily 15 37 200 km COUNT 1 ANY",
			"GEORADIUS Sicily 15 37 200 km ANY", "GEORADIUS Sicily 15 37 200 km COUNT 0", "GEORADIUS Sicily 15 37 200 km COUNT -1",
			"GEORADIUS Sicily 15 37 200 km COUNT x", "GEORADIUS Sicily 15 37 200 km COUNT", "GEORADIUS Sicily 15 37 200 km FOO",
			"GEORADIUS Sicily 15 37 200 mi", "GEORADIUS Sicily 15 37 200000 ft", "GEORADIUS Sicily 15 37 200 yd",
			"GEORADIUS Sicily 15 37 -1 km", "GEORADIUS Sicily 15 37 x km", "GEORADIUS Sicily 200 37 1 km",
			"GEORADIUS Sicily x 37 1 km", "GEORADIUS Sicily 15 37 0 km", "GEORADIUS Sicily 15 37 1 km",
			"GEORADIUS Sicily 15 37 20000 km", "GEORADIUS Sicily 15 37 5000 km WITHDIST",
			"GEORADIUS Sicily 15 37 200 km STORE dst", "ZRANGE dst 0 -1 WITHSCORES",
			"GEORADIUS Sicily 15 37 200 km STOREDIST dst", "ZRANGE dst 0 -1 WITHSCORES",
			"GEORADIUS Sicily 15 37 200 km STORE dst WITHDIST", "GEORADIUS Sicily 15 37 200 km STORE",
			"GEORADIUS Sicily 15 37 1 km STORE dst", "EXISTS dst",
			"GEORADIUS nokey 15 37 200 km", "GEORADIUS nokey 15 37 200 km STORE dst", "SET dst x",
			"GEORADIUS nokey 15 37 200 km STORE dst", "EXISTS dst", "GEORADIUS nokey 215 37 200 km",
			"GEORADIUS_RO Sicily 15 37 200 km WITHDIST", "GEORADIUS_RO Sicily 15 37 200 km STORE dst",
			"GEORADIUS Sicily 15 37 200 km FROMLONLAT 1 1", "GEORADIUS Sicily 15 37 200",
			"SET str x", "GEORADIUS str 15 37 200 km", "GEORADIUS str 15 37 200 yd",
		)},
		{name: "georadiusbymember", steps: steps(geoSicily,
			"GEORADIUSBYMEMBER Sicily Palermo 200 km", "GEORADIUSBYMEMBER Sicily Palermo 200 km WITHDIST WITHCOORD WITHHASH",
			"GEORADIUSBYMEMBER Sicily Palermo 500 km COUNT 2 DESC", "GEORADIUSBYMEMBER Sicily nope 200 km",
			"GEORADIUSBYMEMBER Sicily nope x km", "GEORADIUSBYMEMBER Sicily Palermo x km", "GEORADIUSBYMEMBER Sicily Palermo 1 yd",
			"GEORADIUSBYMEMBER nokey nope x yd", "GEORADIUSBYMEMBER nokey nope x yd WITHDIST", "GEORADIUSBYMEMBER nokey nope x yd BAD",
			"GEORADIUSBYMEMBER nokey nope 1 km STORE d2", "GEORADIUSBYMEMBER Sicily Palermo 500 km STOREDIST d2",
			"ZRANGE d2 0 -1 WITHSCORES", "GEORADIUSBYMEMBER_RO Sicily Palermo 500 km", "GEORADIUSBYMEMBER_RO Sicily Palermo 500 km STORE x",
			"GEORADIUSBYMEMBER Sicily Palermo 500 km ANY",
		)},
		{name: "geosearch", steps: steps(geoSicily,
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC", "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHCOORD WITHDIST WITHHASH",
			"GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 200 100 km DESC", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 1",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 1 ANY", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ANY",
			"GEOSEARCH Sicily FROMLONLAT 15 37", "GEOSEARCH Sicily BYRADIUS 200 km", "GEOSEARCH Sicily",
			"geosearch Sicily BYRADIUS 200 km", "GeoSearch Sicily FROMLONLAT 1 1",
			"GEOSEARCH Sicily FROMLONLAT 15 37 FROMMEMBER Palermo BYRADIUS 200 km",
			"GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 15 37 BYRADIUS 200 km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km BYBOX 1 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 km BYRADIUS 1 km",
			"GEOSEARCH Sicily FROMMEMBER nope BYRADIUS 200 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x 1 km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 x km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 1 km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 -1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 yd",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1", "GEOSEARCH Sicily FROMLONLAT 15 BYRADIUS 1 km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STORE x", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STOREDIST",
			"GEOSEARCH Sicily FROMLONLAT 200 37 BYRADIUS 1 km", "GEOSEARCH nokey FROMMEMBER x BYRADIUS 1 km",
			"GEOSEARCH nokey FROMMEMBER x BYRADIUS x km", "GEOSEARCH nokey FROMMEMBER x", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 0 0 km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 20000 20000 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHDIST COUNT 3 DESC",
			"SET str x", "GEOSEARCH str FROMLONLAT 15 37 BYRADIUS 200 km",
		)},
		{name: "geosearchstore", steps: steps(geoSicily,
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km", "ZRANGE d 0 -1 WITHSCORES",
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST", "ZRANGE d 0 -1 WITHSCORES",
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 1 STOREDIST", "ZRANGE d 0 -1 WITHSCORES",
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHDIST", "GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHCOORD",
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE x", "GEOSEARCHSTORE d Sicily FROMLONLAT 15 37",
			"geosearchstore d Sicily BYRADIUS 200 km", "GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 1 m", "EXISTS d",
			"SET d x", "GEOSEARCHSTORE d nokey FROMMEMBER a BYRADIUS 1 m", "EXISTS d", "GEOSEARCHSTORE d nokey FROMMEMBER a BYRADIUS 1 m",
			"SET d x", "GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 1 m", "TYPE d",
			"GEOSEARCHSTORE Sicily Sicily FROMMEMBER Palermo BYRADIUS 100 km", "ZRANGE Sicily 0 -1 WITHSCORES",
			"SET str x", "GEOSEARCHSTORE d str FROMLONLAT 15 37 BYRADIUS 200 km", "GEOSEARCHSTORE str Sicily FROMLONLAT 15 37 BYRADIUS 200 km",
			"TYPE str", "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 500 km COUNT 1 ANY STOREDIST", "ZRANGE d 0 -1 WITHSCORES",
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 500 km COUNT 2 DESC", "ZRANGE d 0 -1 WITHSCORES",
			"GEORADIUS Sicily 15 37 500 km COUNT 1 DESC STOREDIST d", "ZRANGE d 0 -1 WITHSCORES",
			"GEORADIUS Sicily 15 37 500 km STORE d STOREDIST d2", "EXISTS d d2", "ZRANGE d2 0 -1 WITHSCORES",
			"GEORADIUSBYMEMBER Sicily Palermo 500 km STOREDIST d3 STORE d4", "EXISTS d3 d4", "OBJECT ENCODING d4",
		)},
		{name: "geo-ties-and-count", steps: steps(
			"GEOADD t 10 10 a 10 10 b 10 10 c 10 10 d 10 10 e 10 10 f 10 10 g 10 10 h 10.001 10 i 9.999 10 j",
			"GEOADD t 10 10.001 k 10 9.999 l 10.002 10 m 10 10 n 10 10 o",
			"GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 10 km ASC", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 10 km DESC",
			"GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 10 km COUNT 3", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 10 km COUNT 9",
			"GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 10 km COUNT 12 DESC", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 10 km COUNT 2 DESC",
			"GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 10 km COUNT 4 ANY", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 10 km COUNT 4 ANY ASC",
			"GEOSEARCH t FROMMEMBER i BYRADIUS 1 km COUNT 5 WITHDIST", "GEORADIUS t 10 10 100 km COUNT 7 WITHDIST",
		)},
		{name: "geo-poles-and-wrap", steps: steps(
			"GEOADD p 179.99 0 e1 -179.99 0 w1 0 85 n1 90 85 n2 -90 85 n3 180 -85 s1 0 -85.05 s2",
			"GEOSEARCH p FROMLONLAT 180 0 BYRADIUS 10 km WITHDIST", "GEOSEARCH p FROMLONLAT -180 0 BYRADIUS 5000 km WITHDIST",
			"GEOSEARCH p FROMLONLAT 0 85.05 BYRADIUS 1000 km WITHDIST", "GEOSEARCH p FROMLONLAT 0 85.05 BYRADIUS 10000 km WITHDIST",
			"GEOSEARCH p FROMLONLAT 0 -85 BYBOX 40000 2000 km WITHDIST", "GEORADIUS p 0 0 20000 km WITHDIST ASC",
			"GEORADIUS p 0 0 0 m", "GEOSEARCH p FROMLONLAT 179.99 0 BYBOX 1 1 m WITHCOORD",
		)},
		{name: "geo-getkeys", steps: steps(
			"COMMAND GETKEYS GEORADIUS src 1 1 1 km STORE dst", "COMMAND GETKEYS GEORADIUS src 1 1 1 km",
			"COMMAND GETKEYS GEORADIUSBYMEMBER s m 1 km STOREDIST x", "COMMAND GETKEYS GEORADIUS_RO s 1 1 1 km",
			"COMMAND GETKEYS GEOSEARCHSTORE d s FROMLONLAT 1 1 BYRADIUS 1 km", "COMMAND GETKEYS GEOSEARCH s FROMMEMBER m BYBOX 1 1 km",
			"COMMAND GETKEYS GEOADD k 1 1 m", "COMMAND GETKEYS PFMERGE a b c", "COMMAND GETKEYS PFCOUNT a b", "COMMAND GETKEYS PFDEBUG GETREG k",
			"COMMAND GETKEYS GEORADIUS src 1 1 1 km STORE", "COMMAND INFO GEORADIUS PFCOUNT PFDEBUG GEOSEARCHSTORE",
		)},
		{name: "geo-multi-eval", steps: steps(geoSicily,
			"MULTI", "GEOADD m 1 1 a", "GEOPOS Sicily Palermo", "GEODIST Sicily Palermo Catania km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHCOORD WITHDIST", "GEOADD m 200 1 a", "GEOHASH Sicily Palermo", "EXEC",
			"MULTI", "GEOADD m 1", "GEOPOS", "EXEC",
			"EVAL \"return redis.call('GEOPOS', KEYS[1], 'Palermo', 'nope')\" 1 Sicily",
			"EVAL \"return redis.call('GEOSEARCH', KEYS[1], 'FROMLONLAT', 15, 37, 'BYRADIUS', 200, 'km', 'WITHCOORD', 'WITHDIST', 'WITHHASH')\" 1 Sicily",
			"EVAL \"redis.setresp(3); return redis.call('GEOPOS', KEYS[1], 'Palermo', 'nope')\" 1 Sicily",
			"EVAL \"return redis.call('GEOADD', KEYS[1], 1, 2, 'x')\" 1 Sicily",
			"EVAL \"return redis.pcall('GEOADD', KEYS[1], 1, 200, 'x')\" 1 Sicily",
			"EVAL \"return redis.call('GEODIST', KEYS[1], 'Palermo', 'x', 'mi')\" 1 Sicily",
			"EVAL \"return redis.call('GEOSEARCHSTORE', KEYS[2], KEYS[1], 'FROMMEMBER', 'x', 'BYRADIUS', 300, 'km')\" 2 Sicily {Sicily}d",
			"EVAL \"return redis.call('GEORADIUS_RO', KEYS[1], 15, 37, 200, 'km', 'STORE', 'x')\" 1 Sicily",
		)},
	})
}

// TestDiffGeoRandom compares random searches around random centres with
// random radii and boxes, on sets of random points: results, order,
// distances, hashes and coordinates.
func TestDiffGeoRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(20261124))
	var cases []diffCase
	for c := 0; c < 12; c++ {
		var st []any
		cLong := rng.Float64()*360 - 180
		cLat := rng.Float64()*170 - 85
		spread := []float64{0.01, 0.5, 5, 40}[c%4]
		add := []string{"GEOADD", "r"}
		for i := 0; i < 300; i++ {
			long := cLong + (rng.Float64()*2-1)*spread
			lat := cLat + (rng.Float64()*2-1)*spread
			long = max(-180, min(180, long))
			lat = max(-85.05112878, min(85.05112878, lat))
			add = append(add, strconv.FormatFloat(long, 'f', 6, 64), strconv.FormatFloat(lat, 'f', 6, 64), "p"+strconv.Itoa(i))
		}
		st = append(st, add)
		units := []string{"m", "km", "mi", "ft"}
		for q := 0; q < 25; q++ {
			long := cLong + (rng.Float64()*2-1)*spread
			lat := max(-85.05, min(85.05, cLat+(rng.Float64()*2-1)*spread))
			long = max(-180, min(180, long))
			unit := units[rng.Intn(4)]
			km := spread * 111 * rng.Float64() * 1.5
			conv := map[string]float64{"m": 0.001, "km": 1, "mi": 1.60934, "ft": 0.0003048}[unit]
			r := strconv.FormatFloat(km/conv, 'f', 3, 64)
			from := fmt.Sprintf("FROMLONLAT %.6f %.6f", long, lat)
			if rng.Intn(3) == 0 {
				from = "FROMMEMBER p" + strconv.Itoa(rng.Intn(300))
			}
			by := "BYRADIUS " + r + " " + unit
			if rng.Intn(2) == 0 {
				w := strconv.FormatFloat(2*km*rng.Float64()/conv, 'f', 3, 64)
				by = "BYBOX " + w + " " + r + " " + unit
			}
			opt := []string{"ASC", "DESC", "COUNT 5", "COUNT 50 DESC", "COUNT 3 ANY", ""}[rng.Intn(6)]
			st = append(st, "GEOSEARCH r "+from+" "+by+" WITHDIST WITHHASH WITHCOORD "+opt)
			st = append(st, fmt.Sprintf("GEORADIUS r %.6f %.6f %s %s WITHDIST ASC", long, lat, r, unit))
		}
		st = append(st, "GEOSEARCHSTORE d r FROMMEMBER p1 BYRADIUS 100 km STOREDIST", "ZRANGE d 0 -1 WITHSCORES",
			"GEOPOS r p1 p2 p3 p299", "GEOHASH r p1 p2 p3", "GEODIST r p1 p2 km", "GEODIST r p3 p4 mi")
		cases = append(cases, diffCase{name: "random" + strconv.Itoa(c), steps: steps(st...)})
	}
	runDiffCases(t, cases)
}

// TestDiffGeoHLLCluster: in cluster mode the keys GEORADIUS finds after
// STORE and STOREDIST, and those of GEOSEARCHSTORE and PFMERGE, must hash
// to one slot.
func TestDiffGeoHLLCluster(t *testing.T) {
	p := newClusterDiffPair(t)
	runDiffCasesOn(t, p, []diffCase{
		{name: "cross-slot", steps: steps(
			"GEOADD {a}src 13.361389 38.115556 Palermo",
			"GEORADIUS {a}src 13 38 100 km STORE b", "GEORADIUS {a}src 13 38 100 km STOREDIST b",
			"GEORADIUS {a}src 13 38 100 km store {a}dst", "ZRANGE {a}dst 0 -1 WITHSCORES",
			"GEORADIUSBYMEMBER {a}src Palermo 100 km STORE b", "GEORADIUS_RO {a}src 13 38 100 km",
			"GEOSEARCHSTORE b {a}src FROMLONLAT 13 38 BYRADIUS 100 km", "GEOSEARCHSTORE {a}d2 {a}src FROMLONLAT 13 38 BYRADIUS 100 km",
			"PFADD {h}1 a", "PFMERGE {h}2 {h}1", "PFMERGE x {h}1", "PFCOUNT {h}1 {h}2", "PFCOUNT {h}1 x",
		)},
	})
}
