package engine

// Redis Cluster's hash slots: CRC16 (XMODEM: polynomial 0x1021, initial
// value 0, no reflection) of the key, or of its hash tag, modulo 16384.

// ClusterSlots is the number of hash slots of a Redis cluster.
const ClusterSlots = 16384

var crc16Table = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^c]
	}
	return crc
}

// KeySlot is the hash slot of key, as Redis's keyHashSlot: when the key
// has a '{' followed later by a '}' with at least one byte between them,
// only those bytes (the hash tag, up to the first '}' after the first
// '{') are hashed, so that "{user1}.a" and "{user1}.b" share a slot.
func KeySlot(key []byte) int {
	for i, c := range key {
		if c != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j > i+1 {
					key = key[i+1 : j]
				}
				return int(crc16(key) & (ClusterSlots - 1))
			}
		}
		break
	}
	return int(crc16(key) & (ClusterSlots - 1))
}
