package engine

import (
	"bytes"
	"math"
	"strconv"
	"time"
)

// Stream commands, as t_stream.c in Redis 7.0. The consumer group
// commands are in cmd_stream_group.go.

func streamCommands() []*Command {
	return []*Command{
		{Name: "xadd", Handler: cmdXadd},
		{Name: "xlen", Handler: cmdXlen},
		{Name: "xrange", Handler: func(c *Call) { xrangeCommand(c, false) }},
		{Name: "xrevrange", Handler: func(c *Call) { xrangeCommand(c, true) }},
		{Name: "xdel", Handler: cmdXdel},
		{Name: "xtrim", Handler: cmdXtrim},
		{Name: "xread", Handler: cmdXread},
		{Name: "xreadgroup", Handler: cmdXread},
		{Name: "xsetid", Handler: cmdXsetid},
		{Name: "xack", Handler: cmdXack},
		{Name: "xpending", Handler: cmdXpending},
		{Name: "xclaim", Handler: cmdXclaim},
		{Name: "xautoclaim", Handler: cmdXautoclaim},
		{Name: "xgroup", Subcommands: []*Command{
			{Name: "help", Handler: cmdXgroupHelp},
			{Name: "create", Handler: cmdXgroup},
			{Name: "setid", Handler: cmdXgroup},
			{Name: "destroy", Handler: cmdXgroup},
			{Name: "createconsumer", Handler: cmdXgroup},
			{Name: "delconsumer", Handler: cmdXgroup},
		}},
		{Name: "xinfo", Subcommands: []*Command{
			{Name: "help", Handler: cmdXinfoHelp},
			{Name: "stream", Handler: cmdXinfo},
			{Name: "groups", Handler: cmdXinfo},
			{Name: "consumers", Handler: cmdXinfo},
		}},
	}
}

var (
	errXaddIDZero         = replyError("ERR The ID specified in XADD must be greater than 0-0")
	errXaddIDSmall        = replyError("ERR The ID specified in XADD is equal or smaller than the target stream top item")
	errXaddExhausted      = replyError("ERR The stream has exhausted the last possible ID, unable to add more items")
	errStreamTooLarge     = replyError("ERR Elements are too large to be stored")
	errTrimBoth           = replyError("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
	errStreamMaxlenNeg    = replyError("ERR The MAXLEN argument must be >= 0.")
	errStreamLimitNeg     = replyError("ERR The LIMIT argument must be >= 0.")
	errLimitNoStrategy    = replyError("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
	errXtrimNoStrategy    = replyError("ERR syntax error, XTRIM must be called with a trimming strategy")
	errLimitNotApprox     = replyError("ERR syntax error, LIMIT cannot be used without the special ~ option")
	errXreadUnbalanced    = replyError("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
	errXreadGroupOption   = replyError("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
	errXreadNoackOption   = replyError("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
	errXreadMissingGroup  = replyError("ERR Missing GROUP option for XREADGROUP")
	errXreadgroupDollar   = replyError("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
	errXreadGreater       = replyError("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
	errXreadGroupGone     = replyError("NOGROUP the consumer group this client was blocked on no longer exists")
	errXreadKeyGone       = replyError("UNBLOCKED the stream key no longer exists")
	errXsetidEntriesAdded = replyError("ERR entries_added must be positive")
	errXsetidMaxDeleted   = replyError("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
	errXsetidSmall        = replyError("ERR The ID specified in XSETID is smaller than the target stream top item")
	errXsetidLength       = replyError("ERR The entries_added specified in XSETID is smaller than the target stream length")
)

// ------------------------------------------------------------ XADD, XTRIM

// parseTrimArgs is streamParseAddOrTrimArgsOrReply. For XADD it returns
// the position of the ID argument (len(args) when there is none).
func parseTrimArgs(args [][]byte, xadd bool) (trimArgs, int, streamID, bool, bool, bool, error) {
	var a trimArgs
	var id streamID
	idGiven, seqGiven, noMkstream := false, false, false
	limitGiven := false
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && string(opt) == "*":
			goto done
		case EqualFold(opt, "maxlen") && more > 0, EqualFold(opt, "minid") && more > 0:
			if a.strategy != trimNone {
				return a, 0, id, false, false, false, errTrimBoth
			}
			a.approx = false
			if next := string(args[i+1]); more >= 2 && next == "~" {
				a.approx = true
				i++
			} else if more >= 2 && next == "=" {
				i++
			}
			if EqualFold(opt, "maxlen") {
				n, err := parseLongLong(args[i+1])
				if err != nil {
					return a, 0, id, false, false, false, err
				}
				if n < 0 {
					return a, 0, id, false, false, false, errStreamMaxlenNeg
				}
				a.maxlen, a.strategy = n, trimMaxlen
			} else {
				m, err := parseStrictID(args[i+1])
				if err != nil {
					return a, 0, id, false, false, false, err
				}
				a.minid, a.strategy = m, trimMinid
			}
			i++
			a.argIdx = i
		case EqualFold(opt, "limit") && more > 0:
			n, err := parseLongLong(args[i+1])
			if err != nil {
				return a, 0, id, false, false, false, err
			}
			if n < 0 {
				return a, 0, id, false, false, false, errStreamLimitNeg
			}
			a.limit, limitGiven = n, true
			i++
		case xadd && EqualFold(opt, "nomkstream"):
			noMkstream = true
		case xadd:
			var err error
			if id, seqGiven, err = parseStreamID(opt, 0, true, true); err != nil {
				return a, 0, id, false, false, false, err
			}
			idGiven = true
			goto done
		default:
			return a, 0, id, false, false, false, ErrSyntax
		}
	}
done:
	if a.limit != 0 && a.strategy == trimNone {
		return a, 0, id, false, false, false, errLimitNoStrategy
	}
	if !xadd && a.strategy == trimNone {
		return a, 0, id, false, false, false, errXtrimNoStrategy
	}
	if limitGiven {
		if !a.approx {
			return a, 0, id, false, false, false, errLimitNotApprox
		}
	} else if a.approx {
		a.limit = 100 * streamNodeMaxEntries
	} else {
		a.limit = 0
	}
	return a, i, id, idGiven, seqGiven, noMkstream, nil
}

func cmdXadd(c *Call) {
	trim, idPos, id, idGiven, seqGiven, noMk, err := parseTrimArgs(c.Args, true)
	if err != nil {
		c.Err(err)
		return
	}
	fieldPos := idPos + 1
	if n := len(c.Args) - fieldPos; n < 2 || n%2 == 1 {
		c.Err(ErrArity(c.Cmd.FullName))
		return
	}
	if idGiven && seqGiven && id.isZero() {
		c.Err(errXaddIDZero)
		return
	}
	key := c.Args[1]
	s, exp, err := loadStream(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if s == nil {
		if noMk {
			c.W.Null()
			return
		}
		s = &streamObj{}
	}
	if s.lastID == maxStreamID {
		c.Err(errXaddExhausted)
		return
	}
	var newID streamID
	switch {
	case !idGiven:
		// The engine's clock, never going back: the last ID plus one
		// sequence when the clock is not past it.
		if ms := uint64(c.Tx.Ms); ms > s.lastID.ms {
			newID = streamID{ms, 0}
		} else {
			newID, _ = s.lastID.incr()
		}
	case seqGiven:
		newID = id
	case s.lastID.ms == id.ms:
		if s.lastID.seq == math.MaxUint64 {
			// Redis picks its message from a stale errno here, which is
			// not EDOM: it reports the "too large" error.
			c.Err(errStreamTooLarge)
			return
		}
		newID = streamID{id.ms, s.lastID.seq + 1}
	default:
		newID = id
	}
	if newID.cmp(s.lastID) <= 0 {
		c.Err(errXaddIDSmall)
		return
	}
	fields := make([]string, len(c.Args)-fieldPos)
	tot := 0
	for i, a := range c.Args[fieldPos:] {
		fields[i] = string(a)
		tot += len(a)
	}
	if tot > math.MaxUint32 {
		c.Err(errStreamTooLarge)
		return
	}
	s.appendEntry(newID, fields)
	c.W.BulkString(newID.String())
	c.Tx.Notify(NotifyStream, "xadd", key)
	if s.trim(&trim) > 0 {
		c.Tx.Notify(NotifyStream, "xtrim", key)
	}
	storeStream(c.Tx, key, s, exp)
	c.Tx.SignalReady(key)
}

func cmdXtrim(c *Call) {
	trim, _, _, _, _, _, err := parseTrimArgs(c.Args, false)
	if err != nil {
		c.Err(err)
		return
	}
	key := c.Args[1]
	s, exp, err := loadStream(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	n := s.trim(&trim)
	if n > 0 {
		c.Tx.Notify(NotifyStream, "xtrim", key)
		storeStream(c.Tx, key, s, exp)
	}
	c.W.Int(n)
}

// ------------------------------------------------------- XLEN, XRANGE, XDEL

func cmdXlen(c *Call) {
	s, _, err := loadStream(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case s == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(s.length))
	}
}

func xrangeCommand(c *Call, rev bool) {
	startArg, endArg := c.Args[2], c.Args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, end, err := parseRange(startArg, endArg)
	if err != nil {
		c.Err(err)
		return
	}
	count := int64(-1)
	for j := 4; j < len(c.Args); j++ {
		if EqualFold(c.Args[j], "count") && j+1 < len(c.Args) {
			if count, err = parseLongLong(c.Args[j+1]); err != nil {
				c.Err(err)
				return
			}
			count = max(count, 0)
			j++
		} else {
			c.Err(ErrSyntax)
			return
		}
	}
	s, _, err := loadStream(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
		return
	case s == nil:
		c.W.Array(0)
		return
	case count == 0:
		c.W.NullArray()
		return
	}
	out := s.collectRange(start, end, max(count, 0), rev)
	c.W.Array(len(out))
	for _, e := range out {
		writeStreamEntry(c.W, e)
	}
}

func cmdXdel(c *Call) {
	key := c.Args[1]
	s, exp, err := loadStream(c.Tx, key, false)
	switch {
	case err != nil:
		c.Err(err)
		return
	case s == nil:
		c.W.Int(0)
		return
	}
	ids := make([]streamID, 0, len(c.Args)-2)
	for _, a := range c.Args[2:] {
		id, err := parseStrictID(a)
		if err != nil {
			c.Err(err)
			return
		}
		ids = append(ids, id)
	}
	deleted, first := 0, false
	for _, id := range ids {
		if s.deleteEntry(id) {
			if id == s.firstID {
				first = true
			}
			if id.cmp(s.maxDeletedID) > 0 {
				s.maxDeletedID = id
			}
			deleted++
		}
	}
	if deleted > 0 {
		if s.length == 0 {
			s.firstID = streamID{}
		} else if first {
			s.firstID = s.firstValidID()
		}
		c.Tx.Notify(NotifyStream, "xdel", key)
		storeStream(c.Tx, key, s, exp)
	}
	c.W.Int(int64(deleted))
}

// ------------------------------------------------------------ XSETID

func cmdXsetid(c *Call) {
	id, err := parseStrictID(c.Args[2])
	if err != nil {
		c.Err(err)
		return
	}
	var maxDel streamID
	entriesAdded := int64(-1)
	for i := 3; i < len(c.Args); i += 2 {
		opt := c.Args[i]
		more := len(c.Args) - 1 - i
		switch {
		case EqualFold(opt, "entriesadded") && more > 0:
			if entriesAdded, err = parseLongLong(c.Args[i+1]); err != nil {
				c.Err(err)
				return
			}
			if entriesAdded < 0 {
				c.Err(errXsetidEntriesAdded)
				return
			}
		case EqualFold(opt, "maxdeletedid") && more > 0:
			if maxDel, err = parseStrictID(c.Args[i+1]); err != nil {
				c.Err(err)
				return
			}
			if id.cmp(maxDel) < 0 {
				c.Err(errXsetidMaxDeleted)
				return
			}
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	key := c.Args[1]
	s, exp, err := loadStream(c.Tx, key, false)
	switch {
	case err != nil:
		c.Err(err)
		return
	case s == nil:
		c.Err(errNoSuchKey)
		return
	}
	if s.length > 0 {
		if id.cmp(s.lastValidID()) < 0 {
			c.Err(errXsetidSmall)
			return
		}
		if entriesAdded != -1 && s.length > uint64(entriesAdded) {
			c.Err(errXsetidLength)
			return
		}
	}
	s.lastID = id
	if entriesAdded != -1 {
		s.entriesAdded = uint64(entriesAdded)
	}
	if !maxDel.isZero() {
		s.maxDeletedID = maxDel
	}
	c.OK()
	c.Tx.Notify(NotifyStream, "xsetid", key)
	storeStreamQuiet(c.Tx, key, s, exp)
}

// ------------------------------------------------------ XREAD, XREADGROUP

// xreadBlockedCount is the COUNT of a blocked XREAD given none
// (XREAD_BLOCKED_DEFAULT_COUNT).
const xreadBlockedCount = 1000

type xreadArgs struct {
	group       bool
	timeout     int64 // -1: no BLOCK
	count       int64
	noack       bool
	groupName   []byte
	consumer    []byte
	keys, idArg [][]byte
}

func parseXread(c *Call) (xreadArgs, error) {
	a := xreadArgs{group: len(c.Args[0]) == 10, timeout: -1}
	streamsArg := 0
	for i := 1; i < len(c.Args); i++ {
		more := len(c.Args) - i - 1
		o := c.Args[i]
		switch {
		case EqualFold(o, "block") && more > 0:
			if c.S.Kind == KindScript {
				return a, replyError("ERR " + cArg(c.Args[0]) + " command is not allowed with BLOCK option from scripts")
			}
			i++
			n, ok := ParseInt(c.Args[i])
			if !ok {
				return a, errTimeoutNotInteger
			}
			if n < 0 {
				return a, ErrTimeoutNegative
			}
			a.timeout = n
		case EqualFold(o, "count") && more > 0:
			i++
			n, err := parseLongLong(c.Args[i])
			if err != nil {
				return a, err
			}
			a.count = max(n, 0)
		case EqualFold(o, "streams") && more > 0:
			streamsArg = i + 1
			n := len(c.Args) - streamsArg
			if n%2 != 0 {
				return a, errXreadUnbalanced
			}
			a.keys = c.Args[streamsArg : streamsArg+n/2]
			a.idArg = c.Args[streamsArg+n/2:]
			i = len(c.Args)
		case EqualFold(o, "group") && more >= 2:
			if !a.group {
				return a, errXreadGroupOption
			}
			a.groupName, a.consumer = c.Args[i+1], c.Args[i+2]
			i += 2
		case EqualFold(o, "noack"):
			if !a.group {
				return a, errXreadNoackOption
			}
			a.noack = true
		default:
			return a, ErrSyntax
		}
	}
	if streamsArg == 0 {
		return a, ErrSyntax
	}
	if a.group && a.groupName == nil {
		return a, errXreadMissingGroup
	}
	return a, nil
}

func errNoGroupRead(key, group []byte) error {
	return replyError("NOGROUP No such key '" + cArg(key) + "' or consumer group '" + cArg(group) + "' in XREADGROUP with GROUP option")
}

// xreadTarget is one stream of an XREAD: the ID to read after.
type xreadTarget struct {
	s     *streamObj
	exp   int64
	g     *streamGroup
	gt    streamID
	newer bool // ">": entries never delivered to the group
}

func cmdXread(c *Call) {
	a, err := parseXread(c)
	if err != nil {
		c.Err(err)
		return
	}
	if c.served != nil {
		serveBlockedXread(c, &a)
		return
	}
	targets := make([]xreadTarget, len(a.keys))
	seen := make(map[string]*xreadTarget, len(a.keys))
	for i, key := range a.keys {
		s, exp, err := loadStream(c.Tx, key, true)
		if err != nil {
			c.Err(err)
			return
		}
		t := &targets[i]
		t.s, t.exp = s, exp
		if first := seen[string(key)]; first != nil {
			t.s = first.s // a key given twice is one stream, served twice
		} else {
			seen[string(key)] = t
		}
		if a.group {
			if t.s != nil {
				t.g = t.s.group(a.groupName)
			}
			if t.g == nil {
				c.Err(errNoGroupRead(key, a.groupName))
				return
			}
		}
		switch string(a.idArg[i]) {
		case "$":
			if a.group {
				c.Err(errXreadgroupDollar)
				return
			}
			if t.s != nil {
				t.gt = t.s.lastID
			}
			continue
		case ">":
			if !a.group {
				c.Err(errXreadGreater)
				return
			}
			t.newer = true
			continue
		}
		if t.gt, err = parseStrictID(a.idArg[i]); err != nil {
			c.Err(err)
			return
		}
	}

	// Redis looks every key up a second time to serve it: count that too.
	for i := range targets {
		if targets[i].s != nil {
			c.E.Stats.KeyspaceHits.Add(1)
		} else {
			c.E.Stats.KeyspaceMisses.Add(1)
		}
	}

	// Serve at once what can be served, key by key as Redis does: serving
	// a group moves its last ID, which a key given twice then sees. The
	// count of streams served comes first in the reply, so the streams
	// are recorded, then replayed.
	var rec Recorder
	w := c.W
	c.W = &rec
	n := 0
	for i := range targets {
		t, key := &targets[i], a.keys[i]
		switch {
		case t.s == nil:
			continue
		case a.group && t.newer:
			if t.s.length == 0 || t.s.lastValidID().cmp(t.g.lastID) <= 0 {
				continue
			}
			t.gt = t.g.lastID
		case !a.group && (t.s.length == 0 || t.s.lastValidID().cmp(t.gt) <= 0):
			continue
		}
		n++
		if c.S.Proto == 2 {
			rec.Array(2)
		}
		rec.Bulk(key)
		xreadServe(c, &a, key, t)
	}
	c.W = w
	if n > 0 {
		writeXreadHeader(c, n)
		for _, r := range rec.Replies {
			r.Replay(c.W)
		}
		return
	}
	if a.timeout == -1 || !c.CanBlock() {
		c.W.NullArray()
		return
	}
	blockXread(c, &a, targets)
}

func writeXreadHeader(c *Call, n int) {
	if c.S.Proto == 2 {
		c.W.Array(n)
	} else {
		c.W.Map(n)
	}
}

// xreadServe replies with the entries of one stream after t.gt (or the
// consumer's history) and, for a group, records the deliveries.
func xreadServe(c *Call, a *xreadArgs, key []byte, t *xreadTarget) {
	s := t.s
	if !a.group {
		start, _ := t.gt.incr()
		out := s.collectRange(start, maxStreamID, a.count, false)
		c.W.Array(len(out))
		for _, e := range out {
			writeStreamEntry(c.W, e)
		}
		return
	}
	now := c.Tx.Ms
	g := t.g
	consumer := g.consumer(a.consumer)
	if consumer == nil {
		consumer = g.addConsumer(a.consumer, now)
		c.Tx.Notify(NotifyStream, "xgroup-createconsumer", key)
	} else {
		consumer.seenTime = now
	}
	if !t.newer {
		// The consumer's own history, from its pending entries.
		start, _ := t.gt.incr()
		var pend []*streamNACK
		for _, p := range g.pel[g.seekPEL(start):] {
			if a.count != 0 && int64(len(pend)) >= a.count {
				break
			}
			if p.consumer == consumer {
				pend = append(pend, p)
			}
		}
		c.W.Array(len(pend))
		for _, p := range pend {
			if e := s.find(p.id); e != nil {
				writeStreamEntry(c.W, e)
				p.deliveryTime = now
				p.deliveryCount++
			} else {
				c.W.Array(2)
				c.W.BulkString(p.id.String())
				c.W.NullArray()
			}
		}
		storeStreamQuiet(c.Tx, key, s, t.exp)
		return
	}
	start, _ := t.gt.incr()
	out := s.collectRange(start, maxStreamID, a.count, false)
	c.W.Array(len(out))
	for _, e := range out {
		if e.id.cmp(g.lastID) > 0 {
			if g.entriesRead != -1 && !s.rangeHasTombstones(e.id) {
				g.entriesRead++
			} else if s.entriesAdded != 0 {
				g.entriesRead = s.estimateDistance(e.id)
			}
			g.lastID = e.id
		}
		writeStreamEntry(c.W, e)
		if a.noack {
			continue
		}
		if p := g.nack(e.id); p != nil {
			p.setConsumer(consumer)
			p.deliveryTime = now
			p.deliveryCount = 1
		} else {
			p = &streamNACK{id: e.id, deliveryTime: now, deliveryCount: 1}
			p.setConsumer(consumer)
			g.insertNACK(p)
		}
	}
	storeStreamQuiet(c.Tx, key, s, t.exp)
}

// blockXread parks the command. It will run again with arguments saying
// how the waiter is to be served: "$" becomes the last ID it waits after,
// and the COUNT is the one Redis uses for a blocked reader.
func blockXread(c *Call, a *xreadArgs, targets []xreadTarget) {
	args := [][]byte{c.Args[0]}
	if a.group {
		args = append(args, []byte("GROUP"), a.groupName, a.consumer)
		if a.noack {
			args = append(args, []byte("NOACK"))
		}
	}
	count := a.count
	if count == 0 {
		count = xreadBlockedCount
	}
	args = append(args, []byte("COUNT"), []byte(strconv.FormatInt(count, 10)), []byte("STREAMS"))
	args = append(args, a.keys...)
	gts := make(map[string]streamID, len(targets))
	for i, t := range targets {
		if a.group {
			args = append(args, []byte(">"))
			continue
		}
		args = append(args, []byte(t.gt.String()))
		if _, ok := gts[string(a.keys[i])]; !ok {
			gts[string(a.keys[i])] = t.gt
		}
	}
	group := a.groupName
	// A waiter is checked when one of its keys is signaled: changed in a
	// way Redis reports as a modification (XADD, the key created, deleted
	// or overwritten...) or by XGROUP DESTROY. A group reader also learns
	// that its stream is gone.
	ready := func(tx *Tx, key []byte, signaled bool) bool {
		if !signaled {
			return false
		}
		v, ok := tx.Get(key)
		if !ok || v.Type != TypeStream {
			return group != nil
		}
		s := decodeStream(v.Payload)
		if group == nil {
			return s.lastID.cmp(gts[string(key)]) > 0
		}
		g := s.group(group)
		return g == nil || s.lastID.cmp(g.lastID) > 0
	}
	timeout := time.Duration(math.MaxInt64) // practically forever, as in Redis
	if a.timeout < int64(math.MaxInt64/time.Millisecond) {
		timeout = time.Duration(a.timeout) * time.Millisecond
	}
	c.BlockUntil(a.keys, args, timeout, Reply{Kind: KindNullArray}, ready)
}

// serveBlockedXread answers a waiter from the one key that became ready,
// as Redis's serveClientsBlockedOnStreamKey.
func serveBlockedXread(c *Call, a *xreadArgs) {
	key := c.served
	s, exp, err := loadStream(c.Tx, key, false)
	if s == nil || err != nil {
		c.Err(errXreadKeyGone)
		return
	}
	t := xreadTarget{s: s, exp: exp}
	if a.group {
		if t.g = s.group(a.groupName); t.g == nil {
			c.Err(errXreadGroupGone)
			return
		}
		t.gt, t.newer = t.g.lastID, true
	} else {
		for i, k := range a.keys {
			if bytes.Equal(k, key) {
				t.gt, _ = parseStrictID(a.idArg[i])
				break
			}
		}
	}
	if c.S.Proto == 2 {
		c.W.Array(1)
		c.W.Array(2)
	} else {
		c.W.Map(1)
	}
	c.W.Bulk(key)
	xreadServe(c, a, key, &t)
}
