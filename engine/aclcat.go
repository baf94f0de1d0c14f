package engine

import "strings"

// The ACL vocabulary of commands: the categories a command's spec lists
// and the bits they become when the command registers (table.go), which
// ACL rules (acl.go), their checks and the per-command counters index.

// aclCategories are Redis 7.0's ACL categories in its order (ACL CAT).
var aclCategories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// aclCategoryBit is the bit of a category name (any case), 0 when unknown.
func aclCategoryBit(name string) uint32 {
	for i, c := range aclCategories {
		if strings.EqualFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// aclCategoryBits turns a spec's "@write"-style categories into bits.
func aclCategoryBits(cats []string) uint32 {
	var out uint32
	for _, c := range cats {
		out |= aclCategoryBit(strings.TrimPrefix(c, "@"))
	}
	return out
}

// aclFutureBit is the last bit of a command bitmap (cmdBits), never a
// command's: +@all sets it for the commands added later.
const aclFutureBit = 1024 - 1
