package engine

import (
	"encoding/binary"
)

// listObj is a decoded list, head first.
type listObj struct {
	elems []string
}

func decodeList(payload string) *listObj {
	r := newPayloadReader(payload)
	r.byte()
	n := r.count()
	l := &listObj{elems: make([]string, 0, n)}
	for i := 0; i < n && r.ok; i++ {
		if s := r.str(); r.ok {
			l.elems = append(l.elems, s)
		}
	}
	return l
}

func encodeList(l *listObj) string {
	size := 1 + uvarintLen(len(l.elems))
	for _, e := range l.elems {
		size += uvarintLen(len(e)) + len(e)
	}
	b := make([]byte, 0, size)
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(len(l.elems)))
	for _, e := range l.elems {
		b = appendStr(b, e)
	}
	return b2s(b)
}

func loadList(tx *Tx, key []byte, read bool) (*listObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeList, read)
	if !ok {
		return nil, 0, err
	}
	o := decodeList(v.Payload)
	if len(o.elems) == 0 {
		damaged(tx, key, v.Type)
		return nil, 0, nil
	}
	return o, v.ExpireAt, nil
}

func storeList(tx *Tx, key []byte, l *listObj, expireAt int64) {
	if len(l.elems) == 0 {
		tx.Delete(key)
		return
	}
	tx.Put(key, Value{Type: TypeList, ExpireAt: expireAt, Payload: encodeList(l)})
}
