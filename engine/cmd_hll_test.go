package engine

import "testing"

// TestHLLNotifications: the events of the HyperLogLog commands, as
// hyperloglog.c raises them.
func TestHLLNotifications(t *testing.T) {
	notificationsOf(t, [][]string{
		{"PFADD", "h", "a"},   // pfadd
		{"PFADD", "h", "a"},   // unchanged: none
		{"PFCOUNT", "h"},      // writes the cache back: no event
		{"PFMERGE", "m", "h"}, // pfadd m
		{"PFDEBUG", "TODENSE", "m"},
		{"PFADD", "n"}, // created: pfadd n
	}, []string{"pfadd h", "pfadd m", "pfadd n"})
}
