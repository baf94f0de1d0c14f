package engine

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
)

// Consumer group commands and XINFO, as t_stream.c in Redis 7.0.

var (
	errXgroupNoKey     = replyError("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
	errEntriesRead     = replyError("ERR value for ENTRIESREAD must be positive or -1")
	errBusyGroup       = replyError("BUSYGROUP Consumer Group name already exists")
	errXclaimMinIdle   = replyError("ERR Invalid min-idle-time argument for XCLAIM")
	errXclaimIdle      = replyError("ERR Invalid IDLE option argument for XCLAIM")
	errXclaimTime      = replyError("ERR Invalid TIME option argument for XCLAIM")
	errXclaimRetry     = replyError("ERR Invalid RETRYCOUNT option argument for XCLAIM")
	errXautoclaimIdle  = replyError("ERR Invalid min-idle-time argument for XAUTOCLAIM")
	errXautoclaimCount = replyError("ERR COUNT must be > 0")
)

func errNoGroupFor(group, key []byte) error {
	return replyError("NOGROUP No such consumer group '" + cArg(group) + "' for key name '" + cArg(key) + "'")
}

func errNoKeyOrGroup(key, group []byte) error {
	return replyError("NOGROUP No such key '" + cArg(key) + "' or consumer group '" + cArg(group) + "'")
}

var xgroupHelp = []string{
	"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
	"HELP",
	"    Prints this help.",
}

func cmdXgroupHelp(c *Call) { WriteHelp(c.W, xgroupHelp) }

// cmdXgroup is XGROUP CREATE, SETID, DESTROY, CREATECONSUMER and
// DELCONSUMER: one function as in Redis, whose checks come in one order
// for all of them.
func cmdXgroup(c *Call) {
	sub := strings.ToLower(string(c.Args[1]))
	mkstream := false
	entriesRead := int64(-1)
	for i := 5; i < len(c.Args); {
		switch {
		case sub == "create" && EqualFold(c.Args[i], "mkstream"):
			mkstream = true
			i++
		case (sub == "create" || sub == "setid") && EqualFold(c.Args[i], "entriesread") && i+1 < len(c.Args):
			n, err := parseLongLong(c.Args[i+1])
			if err != nil {
				c.Err(err)
				return
			}
			if n < 0 && n != -1 {
				c.Err(errEntriesRead)
				return
			}
			entriesRead = n
			i += 2
		default:
			subcommandSyntaxError(c)
			return
		}
	}
	key, name := c.Args[2], c.Args[3]
	s, exp, err := loadStream(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	var g *streamGroup
	if !mkstream {
		if s == nil {
			c.Err(errXgroupNoKey)
			return
		}
		if g = s.group(name); g == nil && (sub == "setid" || sub == "createconsumer" || sub == "delconsumer") {
			c.Err(errNoGroupFor(name, key))
			return
		}
	}
	switch {
	case sub == "create" && len(c.Args) <= 8:
		var id streamID
		if string(c.Args[4]) == "$" {
			if s != nil {
				id = s.lastID
			}
		} else if id, err = parseStrictID(c.Args[4]); err != nil {
			c.Err(err)
			return
		}
		created := s == nil
		if created {
			s = &streamObj{}
		}
		if s.addGroup(name, id, entriesRead) == nil {
			c.Err(errBusyGroup) // on an existing stream: a new one has no group
			return
		}
		c.OK()
		c.Tx.Notify(NotifyStream, "xgroup-create", key)
		if created {
			storeStream(c.Tx, key, s, exp) // a new key, signaled as modified
		} else {
			storeStreamQuiet(c.Tx, key, s, exp)
		}
	case sub == "setid" && (len(c.Args) == 5 || len(c.Args) == 7):
		var id streamID
		if string(c.Args[4]) == "$" {
			id = s.lastID
		} else if id, _, err = parseStreamID(c.Args[4], 0, false, false); err != nil {
			c.Err(err)
			return
		}
		g.lastID, g.entriesRead = id, entriesRead
		c.OK()
		c.Tx.Notify(NotifyStream, "xgroup-setid", key)
		storeStreamQuiet(c.Tx, key, s, exp)
	case sub == "destroy" && len(c.Args) == 4:
		if g == nil {
			c.W.Int(0)
			return
		}
		s.removeGroup(name)
		c.W.Int(1)
		c.Tx.Notify(NotifyStream, "xgroup-destroy", key)
		storeStreamQuiet(c.Tx, key, s, exp)
		c.Tx.SignalReady(key) // its blocked readers get NOGROUP
	case sub == "createconsumer" && len(c.Args) == 5:
		if g.addConsumer(c.Args[4], c.Tx.Ms) == nil {
			c.W.Int(0)
			return
		}
		c.W.Int(1)
		c.Tx.Notify(NotifyStream, "xgroup-createconsumer", key)
		storeStreamQuiet(c.Tx, key, s, exp)
	case sub == "delconsumer" && len(c.Args) == 5:
		consumer := g.consumer(c.Args[4])
		if consumer == nil {
			c.W.Int(0)
			return
		}
		pending := consumer.pending
		g.delConsumer(consumer)
		c.Tx.Notify(NotifyStream, "xgroup-delconsumer", key)
		storeStreamQuiet(c.Tx, key, s, exp)
		c.W.Int(int64(pending))
	default:
		subcommandSyntaxError(c)
	}
}

// ------------------------------------------------------------ XACK

func cmdXack(c *Call) {
	s, exp, err := loadStream(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	g := s.group(c.Args[2])
	if g == nil {
		c.W.Int(0)
		return
	}
	ids := make([]streamID, 0, len(c.Args)-3)
	for _, a := range c.Args[3:] {
		id, err := parseStrictID(a)
		if err != nil {
			c.Err(err)
			return
		}
		ids = append(ids, id)
	}
	acked := 0
	for _, id := range ids {
		i := g.seekPEL(id)
		if i < len(g.pel) && g.pel[i].id == id {
			g.removeNACK(i)
			acked++
		}
	}
	if acked > 0 {
		storeStreamQuiet(c.Tx, c.Args[1], s, exp)
	}
	c.W.Int(int64(acked))
}

// ------------------------------------------------------------ XPENDING

func cmdXpending(c *Call) {
	n := len(c.Args)
	justInfo := n == 3
	if n != 3 && (n < 6 || n > 9) {
		c.Err(ErrSyntax)
		return
	}
	var start, end streamID
	var count, minIdle int64
	var consumerName []byte
	if n >= 6 {
		si := 3
		var err error
		if EqualFold(c.Args[3], "idle") {
			if minIdle, err = parseLongLong(c.Args[4]); err != nil {
				c.Err(err)
				return
			}
			if n < 8 {
				c.Err(ErrSyntax)
				return
			}
			si += 2
		}
		if count, err = parseLongLong(c.Args[si+2]); err != nil {
			c.Err(err)
			return
		}
		count = max(count, 0)
		if start, end, err = parseRange(c.Args[si], c.Args[si+1]); err != nil {
			c.Err(err)
			return
		}
		if si+3 < n {
			consumerName = c.Args[si+3]
		}
	}
	s, _, err := loadStream(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	g := s.group(c.Args[2])
	if g == nil {
		c.Err(errNoKeyOrGroup(c.Args[1], c.Args[2]))
		return
	}
	if justInfo {
		c.W.Array(4)
		c.W.Int(int64(len(g.pel)))
		if len(g.pel) == 0 {
			c.W.Null()
			c.W.Null()
			c.W.NullArray()
			return
		}
		c.W.BulkString(g.pel[0].id.String())
		c.W.BulkString(g.pel[len(g.pel)-1].id.String())
		m := 0
		for _, cs := range g.consumers {
			if cs.pending > 0 {
				m++
			}
		}
		c.W.Array(m)
		for _, cs := range g.consumers {
			if cs.pending > 0 {
				c.W.Array(2)
				c.W.BulkString(cs.name)
				c.W.BulkString(fmtInt(int64(cs.pending)))
			}
		}
		return
	}
	var consumer *streamConsumer
	if consumerName != nil {
		if consumer = g.consumer(consumerName); consumer == nil {
			c.W.Array(0)
			return
		}
	}
	now := c.Tx.Ms
	var out []*streamNACK
	for _, p := range g.pel[g.seekPEL(start):] {
		if count == 0 || p.id.cmp(end) > 0 {
			break
		}
		if consumer != nil && p.consumer != consumer {
			continue
		}
		if minIdle != 0 && now-p.deliveryTime < minIdle {
			continue
		}
		out = append(out, p)
		count--
	}
	c.W.Array(len(out))
	for _, p := range out {
		c.W.Array(4)
		c.W.BulkString(p.id.String())
		c.W.BulkString(p.consumer.name)
		c.W.Int(max(now-p.deliveryTime, 0))
		c.W.Int(int64(p.deliveryCount))
	}
}

func fmtInt(n int64) string { return strconv.FormatInt(n, 10) }

// ------------------------------------------------------- XCLAIM, XAUTOCLAIM

// claimConsumer finds or creates the claiming consumer, once per command.
func claimConsumer(c *Call, g *streamGroup, consumer **streamConsumer) *streamConsumer {
	if *consumer == nil {
		name := c.Args[3]
		if *consumer = g.consumer(name); *consumer != nil {
			(*consumer).seenTime = c.Tx.Ms
		} else {
			*consumer = g.addConsumer(name, c.Tx.Ms)
			c.Tx.Notify(NotifyStream, "xgroup-createconsumer", c.Args[1])
		}
	}
	return *consumer
}

func cmdXclaim(c *Call) {
	key := c.Args[1]
	s, exp, err := loadStream(c.Tx, key, true)
	if err != nil {
		c.Err(err)
		return
	}
	g := s.group(c.Args[2])
	if g == nil {
		c.Err(errNoKeyOrGroup(key, c.Args[2]))
		return
	}
	minIdle, ok := ParseInt(c.Args[4])
	if !ok {
		c.Err(errXclaimMinIdle)
		return
	}
	minIdle = max(minIdle, 0)
	j := 5
	var ids []streamID
	for ; j < len(c.Args); j++ {
		id, err := parseStrictID(c.Args[j])
		if err != nil {
			break
		}
		ids = append(ids, id)
	}
	now := c.Tx.Ms
	deliveryTime, retryCount := int64(-1), int64(-1)
	force, justID := false, false
	var lastID streamID
	for ; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		opt := c.Args[j]
		switch {
		case EqualFold(opt, "force"):
			force = true
		case EqualFold(opt, "justid"):
			justID = true
		case EqualFold(opt, "idle") && more > 0:
			j++
			v, ok := ParseInt(c.Args[j])
			if !ok {
				c.Err(errXclaimIdle)
				return
			}
			deliveryTime = now - v
		case EqualFold(opt, "time") && more > 0:
			j++
			v, ok := ParseInt(c.Args[j])
			if !ok {
				c.Err(errXclaimTime)
				return
			}
			deliveryTime = v
		case EqualFold(opt, "retrycount") && more > 0:
			j++
			v, ok := ParseInt(c.Args[j])
			if !ok {
				c.Err(errXclaimRetry)
				return
			}
			retryCount = v
		case EqualFold(opt, "lastid") && more > 0:
			j++
			if lastID, err = parseStrictID(c.Args[j]); err != nil {
				c.Err(err)
				return
			}
		default:
			c.Errf("ERR Unrecognized XCLAIM option '%s'", cArg(opt))
			return
		}
	}
	changed := false
	if lastID.cmp(g.lastID) > 0 {
		g.lastID = lastID
		changed = true
	}
	if deliveryTime < 0 || deliveryTime > now {
		deliveryTime = now
	}
	var consumer *streamConsumer
	var out []*streamEntry
	var outIDs []streamID
	for _, id := range ids {
		i := g.seekPEL(id)
		var p *streamNACK
		if i < len(g.pel) && g.pel[i].id == id {
			p = g.pel[i]
		}
		e := s.find(id)
		if e == nil {
			if p != nil {
				g.removeNACK(i)
				changed = true
			}
			continue
		}
		if force && p == nil {
			p = &streamNACK{id: id}
			g.insertNACK(p)
		}
		if p == nil {
			continue
		}
		if p.consumer != nil && minIdle != 0 && now-p.deliveryTime < minIdle {
			continue
		}
		cs := claimConsumer(c, g, &consumer)
		p.deliveryTime = deliveryTime
		if retryCount >= 0 {
			p.deliveryCount = uint64(retryCount)
		} else if !justID {
			p.deliveryCount++
		}
		if p.consumer != cs {
			p.setConsumer(cs)
		}
		out = append(out, e)
		outIDs = append(outIDs, id)
		changed = true
	}
	c.W.Array(len(outIDs))
	for i, id := range outIDs {
		if justID {
			c.W.BulkString(id.String())
		} else {
			writeStreamEntry(c.W, out[i])
		}
	}
	if changed || consumer != nil {
		storeStreamQuiet(c.Tx, key, s, exp)
	}
}

func cmdXautoclaim(c *Call) {
	key := c.Args[1]
	// Redis looks the key up before it reads the arguments, and reports a
	// wrong type only after them.
	s, exp, lookupErr := loadStream(c.Tx, key, true)
	minIdle, ok := ParseInt(c.Args[4])
	if !ok {
		c.Err(errXautoclaimIdle)
		return
	}
	minIdle = max(minIdle, 0)
	start, ex, err := parseIntervalID(c.Args[5], 0)
	if err != nil {
		c.Err(err)
		return
	}
	if ex {
		if start, ok = start.incr(); !ok {
			c.Err(errStartInterval)
			return
		}
	}
	count, justID := int64(100), false
	for j := 6; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		opt := c.Args[j]
		switch {
		case EqualFold(opt, "count") && more > 0:
			n, ok := ParseInt(c.Args[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				c.Err(errXautoclaimCount)
				return
			}
			count = n
			j++
		case EqualFold(opt, "justid"):
			justID = true
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	if lookupErr != nil {
		c.Err(lookupErr)
		return
	}
	g := s.group(c.Args[2])
	if g == nil {
		c.Err(errNoKeyOrGroup(key, c.Args[2]))
		return
	}
	now := c.Tx.Ms
	attempts := count * 10
	var consumer *streamConsumer
	var claimed []*streamEntry
	var claimedIDs, deleted []streamID
	i := g.seekPEL(start)
	for attempts > 0 && count > 0 && i < len(g.pel) {
		attempts--
		p := g.pel[i]
		e := s.find(p.id)
		if e == nil {
			deleted = append(deleted, p.id)
			g.removeNACK(i)
			count--
			continue
		}
		if minIdle != 0 && now-p.deliveryTime < minIdle {
			i++
			continue
		}
		cs := claimConsumer(c, g, &consumer)
		p.deliveryTime = now
		if !justID {
			p.deliveryCount++
		}
		if p.consumer != cs {
			p.setConsumer(cs)
		}
		claimed = append(claimed, e)
		claimedIDs = append(claimedIDs, p.id)
		count--
		i++
	}
	var next streamID
	if i < len(g.pel) {
		next = g.pel[i].id
	}
	c.W.Array(3)
	c.W.BulkString(next.String())
	c.W.Array(len(claimedIDs))
	for k, id := range claimedIDs {
		if justID {
			c.W.BulkString(id.String())
		} else {
			writeStreamEntry(c.W, claimed[k])
		}
	}
	c.W.Array(len(deleted))
	for _, id := range deleted {
		c.W.BulkString(id.String())
	}
	if len(claimedIDs) > 0 || len(deleted) > 0 || consumer != nil {
		storeStreamQuiet(c.Tx, key, s, exp)
	}
}

// ------------------------------------------------------------ XINFO

var xinfoHelp = []string{
	"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
	"HELP",
	"    Prints this help.",
}

func cmdXinfoHelp(c *Call) {
	if len(c.Args) != 2 {
		subcommandSyntaxError(c)
		return
	}
	WriteHelp(c.W, xinfoHelp)
}

func cmdXinfo(c *Call) {
	key := c.Args[2]
	sub := strings.ToLower(string(c.Args[1]))
	s, _, err := loadStream(c.Tx, key, true)
	switch {
	case err != nil:
		c.Err(err)
		return
	case s == nil:
		c.Err(errNoSuchKey)
		return
	}
	switch {
	case sub == "consumers" && len(c.Args) == 4:
		g := s.group(c.Args[3])
		if g == nil {
			c.Err(errNoGroupFor(c.Args[3], key))
			return
		}
		c.W.Array(len(g.consumers))
		for _, cs := range g.consumers {
			c.W.Map(3)
			c.W.BulkString("name")
			c.W.BulkString(cs.name)
			c.W.BulkString("pending")
			c.W.Int(int64(cs.pending))
			c.W.BulkString("idle")
			c.W.Int(max(c.Tx.Ms-cs.seenTime, 0))
		}
	case sub == "groups" && len(c.Args) == 3:
		c.W.Array(len(s.groups))
		for _, g := range s.groups {
			c.W.Map(6)
			c.W.BulkString("name")
			c.W.BulkString(g.name)
			c.W.BulkString("consumers")
			c.W.Int(int64(len(g.consumers)))
			c.W.BulkString("pending")
			c.W.Int(int64(len(g.pel)))
			c.W.BulkString("last-delivered-id")
			c.W.BulkString(g.lastID.String())
			writeGroupCounters(c, s, g)
		}
	case sub == "stream":
		xinfoStream(c, s)
	default:
		subcommandSyntaxError(c)
	}
}

// writeGroupCounters writes a group's entries-read and lag.
func writeGroupCounters(c *Call, s *streamObj, g *streamGroup) {
	c.W.BulkString("entries-read")
	if g.entriesRead != -1 {
		c.W.Int(g.entriesRead)
	} else {
		c.W.Null()
	}
	c.W.BulkString("lag")
	if lag, ok := s.lag(g); ok {
		c.W.Int(lag)
	} else {
		c.W.Null()
	}
}

// radixTreeNodes is the node count of the radix tree Redis keeps its
// stream nodes in (XINFO STREAM's radix-tree-nodes): the tree keyed by
// each node's first ID as 16 big-endian bytes, with runs of single
// children compressed into one node, as rax.c builds it.
func (s *streamObj) radixTreeNodes() int64 {
	keys := make([][16]byte, len(s.nodes))
	for i, n := range s.nodes {
		id := n.entries[0].id
		binary.BigEndian.PutUint64(keys[i][:8], id.ms)
		binary.BigEndian.PutUint64(keys[i][8:], id.seq)
	}
	if len(keys) == 0 {
		return 1 // the empty head
	}
	return raxNodes(keys, 0)
}

// raxNodes counts the nodes under a node at depth d whose keys (sorted,
// sharing their first d bytes) are keys.
func raxNodes(keys [][16]byte, d int) int64 {
	if d == 16 {
		return 1
	}
	first, last := keys[0], keys[len(keys)-1]
	c := 0
	for d+c < 16 && first[d+c] == last[d+c] {
		c++
	}
	if c > 0 {
		return 1 + raxNodes(keys, d+c) // a compressed node
	}
	n := int64(1)
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi][d] == keys[lo][d] {
			hi++
		}
		n += raxNodes(keys[lo:hi], d+1)
		lo = hi
	}
	return n
}

func xinfoStream(c *Call, s *streamObj) {
	full := false
	count := int64(10)
	opts := c.Args[3:]
	if len(opts) > 0 {
		if len(opts) != 1 && len(opts) != 3 || !EqualFold(opts[0], "full") {
			subcommandSyntaxError(c)
			return
		}
		if len(opts) == 3 {
			if !EqualFold(opts[1], "count") {
				subcommandSyntaxError(c)
				return
			}
			n, err := parseLongLong(opts[2])
			if err != nil {
				c.Err(err)
				return
			}
			if n < 0 {
				n = 10
			}
			count = n
		}
		full = true
	}
	if full {
		c.W.Map(9)
	} else {
		c.W.Map(10)
	}
	c.W.BulkString("length")
	c.W.Int(int64(s.length))
	c.W.BulkString("radix-tree-keys")
	c.W.Int(int64(len(s.nodes)))
	c.W.BulkString("radix-tree-nodes")
	c.W.Int(s.radixTreeNodes())
	c.W.BulkString("last-generated-id")
	c.W.BulkString(s.lastID.String())
	c.W.BulkString("max-deleted-entry-id")
	c.W.BulkString(s.maxDeletedID.String())
	c.W.BulkString("entries-added")
	c.W.Int(int64(s.entriesAdded))
	c.W.BulkString("recorded-first-entry-id")
	c.W.BulkString(s.firstID.String())
	if !full {
		c.W.BulkString("groups")
		c.W.Int(int64(len(s.groups)))
		for _, rev := range []bool{false, true} {
			if rev {
				c.W.BulkString("last-entry")
			} else {
				c.W.BulkString("first-entry")
			}
			if out := s.collectRange(streamID{}, maxStreamID, 1, rev); len(out) > 0 {
				writeStreamEntry(c.W, out[0])
			} else {
				c.W.Null()
			}
		}
		return
	}
	c.W.BulkString("entries")
	out := s.collectRange(streamID{}, maxStreamID, count, false)
	c.W.Array(len(out))
	for _, e := range out {
		writeStreamEntry(c.W, e)
	}
	c.W.BulkString("groups")
	c.W.Array(len(s.groups))
	for _, g := range s.groups {
		c.W.Map(7)
		c.W.BulkString("name")
		c.W.BulkString(g.name)
		c.W.BulkString("last-delivered-id")
		c.W.BulkString(g.lastID.String())
		writeGroupCounters(c, s, g)
		c.W.BulkString("pel-count")
		c.W.Int(int64(len(g.pel)))
		c.W.BulkString("pending")
		n := len(g.pel)
		if count != 0 {
			n = min(n, int(count))
		}
		c.W.Array(n)
		for _, p := range g.pel[:n] {
			c.W.Array(4)
			c.W.BulkString(p.id.String())
			c.W.BulkString(p.consumer.name)
			c.W.Int(p.deliveryTime)
			c.W.Int(int64(p.deliveryCount))
		}
		c.W.BulkString("consumers")
		c.W.Array(len(g.consumers))
		for _, cs := range g.consumers {
			c.W.Map(4)
			c.W.BulkString("name")
			c.W.BulkString(cs.name)
			c.W.BulkString("seen-time")
			c.W.Int(cs.seenTime)
			c.W.BulkString("pel-count")
			c.W.Int(int64(cs.pending))
			c.W.BulkString("pending")
			var mine []*streamNACK
			for _, p := range g.pel {
				if count != 0 && int64(len(mine)) >= count {
					break
				}
				if p.consumer == cs {
					mine = append(mine, p)
				}
			}
			c.W.Array(len(mine))
			for _, p := range mine {
				c.W.Array(3)
				c.W.BulkString(p.id.String())
				c.W.Int(p.deliveryTime)
				c.W.Int(int64(p.deliveryCount))
			}
		}
	}
}
