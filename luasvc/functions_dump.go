package luasvc

import (
	"errors"

	"github.com/lockredis/lockredis/engine"
)

// FUNCTION DUMP's payload, byte for byte as Redis 7.0 writes it
// (functionDumpCommand, rdbSaveFunctions): for every library the opcode
// RDB_OPCODE_FUNCTION2 and its code as an RDB string, then the trailer
// DUMP's payloads end with (RDB version, CRC64). FUNCTION RESTORE also
// reads the 7.0 release candidates' opcode (RDB_OPCODE_FUNCTION). The RDB
// encodings, LZF and CRC64 are engine's, shared with DUMP and RESTORE.

const (
	rdbOpcodeFunction2 = 245
	rdbOpcodeFunction  = 246
)

// dumpLibraries is FUNCTION DUMP's payload for set, libraries in name
// order.
func dumpLibraries(set *libSet) []byte {
	var b []byte
	for _, l := range set.sorted() {
		b = append(b, rdbOpcodeFunction2)
		b = engine.AppendRDBString(b, l.code)
	}
	return engine.AppendRDBTrailer(b)
}

// restoreLibraries reads a FUNCTION DUMP payload into a new set, creating
// every library (which runs its code). Under fs.run.
func (v *vm) restoreLibraries(payload []byte) (*libSet, error) {
	body, ok := engine.RDBPayloadBody(payload)
	if !ok {
		return nil, errBadPayload
	}
	set := newLibSet()
	r := engine.NewRDBReader(body)
	for r.More() {
		var code string
		switch r.Byte() {
		case rdbOpcodeFunction2:
			if code = r.Str(); r.Bad() {
				return nil, errors.New("Failed loading library payload")
			}
		case rdbOpcodeFunction:
			s, err := oldLibrary(r)
			if err != nil {
				return nil, err
			}
			code = s
		default:
			return nil, errors.New("given type is not a function")
		}
		if _, err := v.createLibrary(code, false, set); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// oldLibrary reads the library format of Redis 7.0's release candidates:
// name, engine, optional description and code, turned into a shebang.
func oldLibrary(r *engine.RDBReader) (string, error) {
	name := r.Str()
	if r.Bad() {
		return "", errors.New("Failed loading library name")
	}
	engineName := r.Str()
	if r.Bad() {
		return "", errors.New("Failed loading engine name")
	}
	// rdbLoadLen: an encoding byte counts as its low 6 bits.
	if hasDesc, _ := r.Length(); r.Bad() {
		return "", errors.New("Failed loading library description indicator")
	} else if hasDesc != 0 {
		if r.Str(); r.Bad() {
			return "", errors.New("Failed loading library description")
		}
	}
	blob := r.Str()
	if r.Bad() {
		return "", errors.New("Failed loading library blob")
	}
	return "#!" + engineName + " name=" + name + "\n" + blob, nil
}
