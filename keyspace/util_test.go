package keyspace

import "testing"

func TestBytesToHuman(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0B", 200: "200B", 1023: "1023B", 1024: "1.00K", 32768: "32.00K",
		1512944: "1.44M", 25276514304: "23.54G", 1 << 40: "1.00T", 1 << 50: "1.00P", 1<<60 - 1: "1024.00P", 1 << 60: "1152921504606846976B",
	} {
		if got := BytesToHuman(n); got != want {
			t.Errorf("BytesToHuman(%d) = %s, want %s", n, got, want)
		}
	}
}
