package lockredis

import (
	"sort"
	"strconv"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// The typed helpers below run their command through the one dispatcher,
// as the direct helpers' client (see DB): they behave exactly as the
// command does (expiry, keyspace events, fencing tokens), and a command's
// error reply, such as WRONGTYPE, comes back as the error. A missing key,
// field or member is ErrKeyNotFound where the helper returns a value.

// strs returns the elements of an array reply as strings.
func strs(r engine.Reply) []string {
	out := make([]string, len(r.Elems))
	for i, e := range r.Elems {
		out[i] = e.Str
	}
	return out
}

// intReply returns an integer reply, or the error reply.
func intReply(r engine.Reply) (int, error) {
	if err := replyErr(r); err != nil {
		return 0, err
	}
	return int(r.Int), nil
}

// bulkReply returns a bulk reply, ErrKeyNotFound for a null one, or the
// error reply.
func bulkReply(r engine.Reply) (string, error) {
	if err := replyErr(r); err != nil {
		return "", err
	}
	if r.Kind == engine.KindNull {
		return "", ErrKeyNotFound
	}
	return r.Str, nil
}

// floatReply returns a double reply, or a bulk one holding a number
// (INCRBYFLOAT's).
func floatReply(r engine.Reply) (float64, error) {
	if r.Kind == engine.KindDouble {
		return r.Double, nil
	}
	s, err := bulkReply(r)
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(s, 64)
}

// listReply returns an array reply, ErrKeyNotFound for an empty one (Redis
// has no empty collections: the key is missing), or the error reply.
func listReply(r engine.Reply) ([]string, error) {
	if err := replyErr(r); err != nil {
		return nil, err
	}
	if len(r.Elems) == 0 {
		return nil, ErrKeyNotFound
	}
	return strs(r), nil
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Strings and keys.

// Incr adds delta to the integer in key (INCRBY) and returns the result.
func (d *DB) Incr(key string, delta int) (int, error) {
	return intReply(d.do("INCRBY", key, strconv.Itoa(delta)))
}

// IncrByFloat adds delta to the number in key (INCRBYFLOAT) and returns
// the result.
func (d *DB) IncrByFloat(key string, delta float64) (float64, error) {
	return floatReply(d.do("INCRBYFLOAT", key, fmtFloat(delta)))
}

// Type is key's type as TYPE answers it: "string", "hash", "list", "set",
// "zset", or "none" for a missing key.
func (d *DB) Type(key string) string { return d.do("TYPE", key).Str }

// Expire sets key's time to live (PEXPIRE) and reports whether key exists.
func (d *DB) Expire(key string, ttl time.Duration) bool {
	return d.do("PEXPIRE", key, strconv.FormatInt(ttl.Milliseconds(), 10)).Int == 1
}

// Persist removes key's expiry and reports whether it had one.
func (d *DB) Persist(key string) bool { return d.do("PERSIST", key).Int == 1 }

// Hashes.

// HSet sets fields of the hash in key from field, value pairs and returns
// how many fields are new.
func (d *DB) HSet(key string, fieldValues ...string) (int, error) {
	return intReply(d.do(append([]string{"HSET", key}, fieldValues...)...))
}

// HGet returns a field of the hash in key.
func (d *DB) HGet(key, field string) (string, error) { return bulkReply(d.do("HGET", key, field)) }

// HKeys returns the fields of the hash in key, sorted.
func (d *DB) HKeys(key string) ([]string, error) {
	fields, err := listReply(d.do("HKEYS", key))
	sort.Strings(fields)
	return fields, err
}

// Hash returns the hash in key as a map.
func (d *DB) Hash(key string) (map[string]string, error) {
	fv, err := listReply(d.do("HGETALL", key))
	if err != nil {
		return nil, err
	}
	h := make(map[string]string, len(fv)/2)
	for i := 0; i+1 < len(fv); i += 2 {
		h[fv[i]] = fv[i+1]
	}
	return h, nil
}

// HDel deletes fields of the hash in key and returns how many existed.
func (d *DB) HDel(key string, fields ...string) (int, error) {
	return intReply(d.do(append([]string{"HDEL", key}, fields...)...))
}

// HIncr adds delta to an integer field of the hash in key (HINCRBY) and
// returns the result.
func (d *DB) HIncr(key, field string, delta int) (int, error) {
	return intReply(d.do("HINCRBY", key, field, strconv.Itoa(delta)))
}

// HIncrFloat adds delta to a number field of the hash in key
// (HINCRBYFLOAT) and returns the result.
func (d *DB) HIncrFloat(key, field string, delta float64) (float64, error) {
	return floatReply(d.do("HINCRBYFLOAT", key, field, fmtFloat(delta)))
}

// Lists.

// Lpush pushes values at the head of the list in key, one after the other
// (LPUSH), and returns the list's length.
func (d *DB) Lpush(key string, values ...string) (int, error) {
	return intReply(d.do(append([]string{"LPUSH", key}, values...)...))
}

// Rpush pushes values at the tail of the list in key (RPUSH) and returns
// the list's length.
func (d *DB) Rpush(key string, values ...string) (int, error) {
	return intReply(d.do(append([]string{"RPUSH", key}, values...)...))
}

// Lpop removes and returns the head of the list in key.
func (d *DB) Lpop(key string) (string, error) { return bulkReply(d.do("LPOP", key)) }

// Rpop removes and returns the tail of the list in key.
func (d *DB) Rpop(key string) (string, error) { return bulkReply(d.do("RPOP", key)) }

// List returns the elements of the list in key, head first.
func (d *DB) List(key string) ([]string, error) { return listReply(d.do("LRANGE", key, "0", "-1")) }

// Sets.

// SetAdd adds members to the set in key and returns how many are new.
func (d *DB) SetAdd(key string, members ...string) (int, error) {
	return intReply(d.do(append([]string{"SADD", key}, members...)...))
}

// Members returns the members of the set in key, sorted.
func (d *DB) Members(key string) ([]string, error) {
	members, err := listReply(d.do("SMEMBERS", key))
	sort.Strings(members)
	return members, err
}

// IsMember reports whether member is in the set in key.
func (d *DB) IsMember(key, member string) (bool, error) {
	n, err := intReply(d.do("SISMEMBER", key, member))
	return n == 1, err
}

// SRem removes members from the set in key and returns how many were in it.
func (d *DB) SRem(key string, members ...string) (int, error) {
	return intReply(d.do(append([]string{"SREM", key}, members...)...))
}

// Sorted sets.

// ZAdd sets member's score in the sorted set in key and reports whether
// member is new.
func (d *DB) ZAdd(key string, score float64, member string) (bool, error) {
	n, err := intReply(d.do("ZADD", key, fmtFloat(score), member))
	return n == 1, err
}

// ZMembers returns the members of the sorted set in key, lowest score
// first (ZRANGE's order).
func (d *DB) ZMembers(key string) ([]string, error) {
	return listReply(d.do("ZRANGE", key, "0", "-1"))
}

// ZScore returns member's score in the sorted set in key.
func (d *DB) ZScore(key, member string) (float64, error) {
	return floatReply(d.do("ZSCORE", key, member))
}

// ZRem removes member from the sorted set in key and reports whether it
// was in it.
func (d *DB) ZRem(key, member string) (bool, error) {
	n, err := intReply(d.do("ZREM", key, member))
	return n == 1, err
}

// SortedSet returns the sorted set in key as a map of member to score.
func (d *DB) SortedSet(key string) (map[string]float64, error) {
	r := d.do("ZRANGE", key, "0", "-1", "WITHSCORES")
	if _, err := listReply(r); err != nil {
		return nil, err
	}
	z := make(map[string]float64, len(r.Elems)/2)
	for i := 0; i+1 < len(r.Elems); i += 2 {
		score, err := floatReply(r.Elems[i+1])
		if err != nil {
			return nil, err
		}
		z[r.Elems[i].Str] = score
	}
	return z, nil
}

// The same helpers on database 0.

// Incr is DB.Incr on database 0.
func (s *Server) Incr(key string, delta int) (int, error) { return s.DB(0).Incr(key, delta) }

// IncrByFloat is DB.IncrByFloat on database 0.
func (s *Server) IncrByFloat(key string, delta float64) (float64, error) {
	return s.DB(0).IncrByFloat(key, delta)
}

// Type is DB.Type on database 0.
func (s *Server) Type(key string) string { return s.DB(0).Type(key) }

// Expire is DB.Expire on database 0.
func (s *Server) Expire(key string, ttl time.Duration) bool { return s.DB(0).Expire(key, ttl) }

// Persist is DB.Persist on database 0.
func (s *Server) Persist(key string) bool { return s.DB(0).Persist(key) }

// HSet is DB.HSet on database 0.
func (s *Server) HSet(key string, fieldValues ...string) (int, error) {
	return s.DB(0).HSet(key, fieldValues...)
}

// HGet is DB.HGet on database 0.
func (s *Server) HGet(key, field string) (string, error) { return s.DB(0).HGet(key, field) }

// HKeys is DB.HKeys on database 0.
func (s *Server) HKeys(key string) ([]string, error) { return s.DB(0).HKeys(key) }

// Hash is DB.Hash on database 0.
func (s *Server) Hash(key string) (map[string]string, error) { return s.DB(0).Hash(key) }

// HDel is DB.HDel on database 0.
func (s *Server) HDel(key string, fields ...string) (int, error) { return s.DB(0).HDel(key, fields...) }

// HIncr is DB.HIncr on database 0.
func (s *Server) HIncr(key, field string, delta int) (int, error) {
	return s.DB(0).HIncr(key, field, delta)
}

// HIncrFloat is DB.HIncrFloat on database 0.
func (s *Server) HIncrFloat(key, field string, delta float64) (float64, error) {
	return s.DB(0).HIncrFloat(key, field, delta)
}

// Lpush is DB.Lpush on database 0.
func (s *Server) Lpush(key string, values ...string) (int, error) {
	return s.DB(0).Lpush(key, values...)
}

// Rpush is DB.Rpush on database 0.
func (s *Server) Rpush(key string, values ...string) (int, error) {
	return s.DB(0).Rpush(key, values...)
}

// Lpop is DB.Lpop on database 0.
func (s *Server) Lpop(key string) (string, error) { return s.DB(0).Lpop(key) }

// Rpop is DB.Rpop on database 0.
func (s *Server) Rpop(key string) (string, error) { return s.DB(0).Rpop(key) }

// List is DB.List on database 0.
func (s *Server) List(key string) ([]string, error) { return s.DB(0).List(key) }

// SetAdd is DB.SetAdd on database 0.
func (s *Server) SetAdd(key string, members ...string) (int, error) {
	return s.DB(0).SetAdd(key, members...)
}

// Members is DB.Members on database 0.
func (s *Server) Members(key string) ([]string, error) { return s.DB(0).Members(key) }

// IsMember is DB.IsMember on database 0.
func (s *Server) IsMember(key, member string) (bool, error) { return s.DB(0).IsMember(key, member) }

// SRem is DB.SRem on database 0.
func (s *Server) SRem(key string, members ...string) (int, error) {
	return s.DB(0).SRem(key, members...)
}

// ZAdd is DB.ZAdd on database 0.
func (s *Server) ZAdd(key string, score float64, member string) (bool, error) {
	return s.DB(0).ZAdd(key, score, member)
}

// ZMembers is DB.ZMembers on database 0.
func (s *Server) ZMembers(key string) ([]string, error) { return s.DB(0).ZMembers(key) }

// ZScore is DB.ZScore on database 0.
func (s *Server) ZScore(key, member string) (float64, error) { return s.DB(0).ZScore(key, member) }

// ZRem is DB.ZRem on database 0.
func (s *Server) ZRem(key, member string) (bool, error) { return s.DB(0).ZRem(key, member) }

// SortedSet is DB.SortedSet on database 0.
func (s *Server) SortedSet(key string) (map[string]float64, error) { return s.DB(0).SortedSet(key) }
