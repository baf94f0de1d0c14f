package compat

import "testing"

// Differential tests for BLPOP, BRPOP, BLMOVE and BRPOPLPUSH from several
// connections. A client is known to be blocked when INFO clients says so
// (h4AwaitBlocked), never after a sleep, so the order in which clients
// block is the order the script gives. Timeouts are short (0.1 s) and only
// used where the answer is "nothing came".
func TestDiffBlocking(t *testing.T) {
	C := func(conn int, items ...any) []h4Step { return h4On(conn, items...) }
	send, recv, await := h4SendOn, h4RecvOn, h4AwaitBlocked
	cases := []h4Case{
		{"immediate", h4Script(
			C(0, "RPUSH l a b c d e f", "BLPOP l 0", "BRPOP l 0", "BLPOP nokey l 0", "BRPOP nokey l 1.5",
				"BLMOVE l d LEFT RIGHT 0", "BLMOVE l d RIGHT LEFT 0", "LRANGE l 0 -1", "EXISTS l",
				"LRANGE d 0 -1", "BRPOPLPUSH d d 0", "LRANGE d 0 -1", "BLMOVE d d LEFT RIGHT 0", "LRANGE d 0 -1",
				"BLPOP d 0", "BLPOP d 0", "EXISTS d", "RPUSH l x", "blpop l 0", "EXISTS l"),
		)},
		{"immediate-first-nonempty-key", h4Script(
			C(0, "RPUSH b 1", "RPUSH c 2", "BLPOP a b c 0", "BRPOP a c b 0", "EXISTS b c"),
		)},
		{"timeouts", h4Script(
			send(1, "BLPOP k 0.1"), recv(1),
			send(1, "BRPOP k j 0.05"), recv(1),
			send(1, "BLMOVE k d LEFT RIGHT 0.1"), recv(1),
			send(1, "BRPOPLPUSH k d 0.1"), recv(1),
			send(1, "BLPOP k .05"), recv(1),
			C(1, "PING", "EXISTS k d"),
			C(0, "SET s v"), send(1, "BLPOP k s 0.05"), recv(1),
		)},
		{"errors", h4Script(
			C(0, "SET s v", "HSET h f v",
				"BLPOP k -1", "BLPOP k -0.1", "BLPOP k abc", "BLPOP k ''", "BLPOP k 1x", "BLPOP k inf",
				"BLPOP k -inf", "BLPOP k nan", "BLPOP k 1e400", "BRPOP k 99999999999999999999",
				"BLPOP k", "BLPOP", "BRPOP k", "BLMOVE k d LEFT RIGHT", "BLMOVE k d UP RIGHT 0",
				"BLMOVE k d LEFT DOWN 0", "BLMOVE k d LEFT RIGHT -1", "BLMOVE k d LEFT RIGHT abc",
				"BRPOPLPUSH k d", "BRPOPLPUSH k d -1", "BRPOPLPUSH k d x",
				"BLPOP s 0", "BRPOP h 0", "BLPOP nokey s 0", "BLMOVE s d LEFT RIGHT 0",
				"BRPOPLPUSH h d 0", "RPUSH l a", "BLMOVE l s LEFT RIGHT 0", "BRPOPLPUSH l h 0", "LRANGE l 0 -1"),
		)},
		{"two-waiters-one-push", h4Script(
			send(1, "BLPOP k 0"), await(1),
			send(2, "BLPOP k 0"), await(2),
			C(0, "RPUSH k a b"),
			recv(1), recv(2), await(0),
			C(0, "EXISTS k"),
		)},
		{"three-waiters-two-elements", h4Script(
			send(1, "BRPOP k 0"), await(1),
			send(2, "BLPOP k 0"), await(2),
			send(3, "BLPOP k 0"), await(3),
			C(0, "LPUSH k a b"),
			recv(1), recv(2), await(1),
			C(0, "RPUSH k c d", "LRANGE k 0 -1"), recv(3), await(0),
		)},
		{"waiter-on-several-keys", h4Script(
			send(1, "BLPOP a b c 0"), await(1),
			C(0, "RPUSH c x", "RPUSH b y"),
			recv(1), C(0, "LRANGE b 0 -1", "EXISTS c"),
		)},
		{"push-of-many-to-one-waiter", h4Script(
			send(1, "BLPOP k 0"), await(1),
			C(0, "LPUSH k a b c"), recv(1), C(0, "LRANGE k 0 -1"),
			send(1, "BRPOP k2 0"), await(1),
			C(0, "RPUSH k2 a b c"), recv(1), C(0, "LRANGE k2 0 -1"),
		)},
		{"blmove-waiter", h4Script(
			send(1, "BLMOVE src dst RIGHT LEFT 0"), await(1),
			C(0, "RPUSH src a b"), recv(1), C(0, "LRANGE src 0 -1", "LRANGE dst 0 -1"),
			send(1, "BRPOPLPUSH src dst 0"), await(0), recv(1), C(0, "LRANGE dst 0 -1", "EXISTS src"),
			send(1, "BRPOPLPUSH src dst 0"), await(1), C(0, "LPUSH src z"), recv(1), C(0, "LRANGE dst 0 -1"),
		)},
		{"blmove-serves-blpop-on-destination", h4Script(
			send(1, "BLPOP dst 0"), await(1),
			send(2, "BLMOVE src dst LEFT RIGHT 0"), await(2),
			C(0, "RPUSH src x"),
			recv(2), recv(1), await(0),
			C(0, "EXISTS src dst"),
		)},
		{"lmove-serves-blpop-on-destination", h4Script(
			C(0, "RPUSH src x y"),
			send(1, "BLPOP dst 0"), await(1),
			C(0, "LMOVE src dst LEFT RIGHT"), recv(1),
			send(1, "BRPOP dst 0"), await(1),
			C(0, "RPOPLPUSH src dst"), recv(1),
			C(0, "EXISTS src dst"),
		)},
		{"blocking-inside-multi", h4Script(
			C(1, "MULTI", "BLPOP k 0", "BRPOP k 1", "BLMOVE k d LEFT LEFT 0", "BRPOPLPUSH k d 0", "EXEC"),
			C(1, "RPUSH k a b", "SET s v",
				"MULTI", "BLPOP k 0", "BRPOP k 0", "BLPOP k 0", "BLPOP s 0", "BLPOP k -1", "EXEC", "EXISTS k"),
			await(0),
		)},
		{"push-inside-multi-then-popped", h4Script(
			// The waiter sees the state after EXEC: the element pushed and
			// popped inside the transaction never reaches it.
			send(1, "BLPOP k 0"), await(1),
			C(0, "MULTI", "RPUSH k a", "LPOP k", "EXEC"),
			await(1),
			C(0, "MULTI", "RPUSH k b c", "RPOP k", "EXEC"),
			recv(1), await(0), C(0, "EXISTS k"),
		)},
		{"waiter-disconnects", h4Script(
			send(1, "BLPOP k 0"), await(1),
			h4CloseConn(1), await(0),
			C(0, "RPUSH k a", "LRANGE k 0 -1"),
		)},
		{"first-waiter-disconnects", h4Script(
			send(1, "BLPOP k 0"), await(1),
			send(2, "BLPOP k 0"), await(2),
			h4CloseConn(1), await(1),
			C(0, "RPUSH k a b"), recv(2), C(0, "LRANGE k 0 -1"),
		)},
		{"key-becomes-other-type", h4Script(
			send(1, "BLPOP k 0"), await(1),
			C(0, "SET k v"), await(1),
			C(0, "DEL k", "RPUSH k a"), recv(1), await(0),
		)},
		{"push-in-other-db", h4Script(
			send(1, "BLPOP k 0"), await(1),
			C(0, "SELECT 1", "RPUSH k a", "LLEN k"), await(1),
			C(0, "SELECT 0", "RPUSH k b"), recv(1),
		)},
		{"waiter-in-other-db", h4Script(
			C(1, "SELECT 3"), send(1, "BRPOP k 0"), await(1),
			C(0, "RPUSH k a"), await(1),
			C(0, "SELECT 3", "RPUSH k b c"), recv(1), C(0, "LRANGE k 0 -1"),
		)},
		{"timeout-then-served-list-kept", h4Script(
			send(1, "BLPOP k 0.05"), recv(1),
			C(0, "RPUSH k a"), C(1, "LLEN k"),
		)},
	}
	h4RunCases(t, newDiffPair(t, ""), cases)
}
