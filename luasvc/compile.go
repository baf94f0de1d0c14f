package luasvc

import (
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// scriptChunk is the chunk name of every EVAL script. Redis loads scripts
// as "@user_script": messages show "user_script:3:", error replies end with
// "on @user_script:3.".
const scriptChunk = "user_script"

// compile parses and compiles Lua source. source is Lua's name for the
// chunk ("@user_script", "=name", or the text itself for loadstring),
// shown in messages as chunkID makes it; ccalls is Lua's C-call
// depth at the load (0 for a script Redis loads, the VM's depth for
// loadstring), on which the parser's nesting limit depends. Whether the
// source compiles, and the error if not, is Lua 5.1's
// ("user_script:1: '=' expected near 'x'"): luaSyntaxCheck decides, and
// gopher-lua compiles what it accepted.
func compile(src, source string, ccalls int) (*lua.FunctionProto, error) {
	// Compile errors come from the lexer, which shortens the name to 80
	// bytes; runtime messages use 60 (LUA_IDSIZE).
	chunk := chunkIDSize(source, 80)
	// Redis's Lua refuses binary chunks: its lexer meets the ESC byte of
	// the signature as the first token.
	if strings.HasPrefix(src, "\x1b") {
		return nil, errors.New(chunk + ":1: unexpected symbol near 'char(27)'")
	}
	gsrc, msg := luaForGopher(src, chunk, ccalls)
	if msg != "" {
		return nil, errors.New(msg)
	}
	stmts, err := parse.Parse(strings.NewReader(gsrc), chunkID(source))
	if err != nil {
		// Lua 5.1 accepts it but gopher-lua does not (it reads numbers
		// and escapes differently): its own message, in Lua's words
		// where they exist.
		return nil, syntaxError(err, src, chunk)
	}
	proto, err := lua.Compile(stmts, chunkID(source))
	if err != nil {
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			return nil, errors.New(chunk + ":" + strconv.Itoa(ce.Line) + ": " + ce.Message)
		}
		return nil, errors.New(chunk + ": " + err.Error())
	}
	// Lua 5.1 gives the main chunk no "arg" table (gopher-lua builds one
	// on every call, unreachable from the code).
	proto.IsVarArg &^= lua.VarArgNeedsArg
	return proto, nil
}

// Lexer messages of gopher-lua and the Lua 5.1 words for them.
var lexMessages = map[string]string{
	"syntax error":                  "unexpected symbol",
	"parse error":                   "unexpected symbol",
	"unterminated string":           "unfinished string",
	"unterminated multiline string": "unfinished long string",
	"invalid multiline string":      "invalid long string delimiter",
	"invalid multiline comment":     "unfinished long comment",
	"illegal hexadecimal number":    "malformed number",
	"Invalid token":                 "unexpected symbol",
	"Invalid '~' token":             "unexpected symbol",
}

func syntaxError(err error, src, chunk string) error {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return errors.New(chunk + ": " + strings.TrimSpace(err.Error()))
	}
	msg := pe.Message
	if m, ok := lexMessages[msg]; ok {
		msg = m
	}
	line := pe.Pos.Line
	near := pe.Token
	if line == parse.EOF || line <= 0 {
		// At the end of input Lua reports the last line.
		line = strings.Count(src, "\n") + 1
		near = "<eof>"
	} else if near == "" || near == "EOF" {
		near = "<eof>"
	} else if pe.Message == "unterminated string" && line > 1 {
		// gopher-lua stops after the newline and drops the quote; Lua
		// reports the string's own line, quote included.
		line--
		lines := strings.Split(src, "\n")
		if l := lines[line-1]; strings.LastIndexAny(l, `"'`) >= 0 {
			near = l[strings.LastIndexAny(l, `"'`):][:1] + near
		}
	}
	if near == "\x00" {
		// A NUL byte is token 0, which lexerror takes for "no token".
		return errors.New(chunk + ":" + strconv.Itoa(line) + ": " + msg)
	}
	if len(near) == 1 && (near[0] < 0x20 || near[0] == 0x7f) {
		// Lua names a control character by its code (luaX_token2str).
		near = "char(" + strconv.Itoa(int(near[0])) + ")"
	}
	return errors.New(chunk + ":" + strconv.Itoa(line) + ": " + msg + " near '" + near + "'")
}

// chunkID is Lua 5.1's luaO_chunkid with LUA_IDSIZE: how a chunk name
// appears in runtime messages. "=name" shows as name, "@file" as file,
// anything else is source text shown as [string "first line..."].
func chunkID(source string) string { return chunkIDSize(source, 60) }

// chunkIDSize is luaO_chunkid for an output buffer of size bytes (the
// lexer's messages use 80, MAXSRC). The name is a C string.
func chunkIDSize(source string, size int) string {
	source = cString(source)
	if rest, ok := strings.CutPrefix(source, "="); ok {
		if len(rest) > size-1 {
			rest = rest[:size-1]
		}
		return rest
	}
	if rest, ok := strings.CutPrefix(source, "@"); ok {
		room := size - len(" '...' ") - 1
		if len(rest) > room {
			return "..." + rest[len(rest)-room:]
		}
		return rest
	}
	room := size - len(` [string "..."] `) - 1
	n := strings.IndexAny(source, "\r\n")
	if n < 0 {
		n = len(source)
	}
	if n > room {
		n = room
	}
	if n < len(source) {
		return `[string "` + source[:n] + `..."]`
	}
	return `[string "` + source + `"]`
}
