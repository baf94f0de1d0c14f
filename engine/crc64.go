package engine

import "hash/crc64"

// crc64Redis is Redis's crc64 (crc64.c): the Jones polynomial, reflected,
// starting from 0 with no final inversion. The DUMP payload's trailer
// carries it. Go's crc64 inverts before and after, so its update is run on
// the inverted value and inverted back.
var crc64JonesTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

func crc64Redis(crc uint64, p []byte) uint64 {
	return ^crc64.Update(^crc, crc64JonesTable, p)
}
