package engine

import "bytes"

// AppendSplitArgs splits line exactly as Redis's sdssplitargs does (for an
// inline command, a library's shebang, an ACL selector), appending the
// arguments to tokens and their end offsets to ends: words separated by
// blanks, "double" quoted with escapes (\n, \xHH...), 'single' quoted. ok
// is false on unbalanced quotes, or a closing quote not followed by a
// blank. The line is a C string to Redis, so it ends at a NUL byte.
func AppendSplitArgs(line, tokens []byte, ends []int) (_ []byte, _ []int, ok bool) {
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return tokens, ends, true
		}
		inDouble, inSingle, done := false, false, false
		for !done {
			c := at(i)
			switch {
			case inDouble:
				switch {
				case c == '\\' && at(i+1) == 'x' && isHex(at(i+2)) && isHex(at(i+3)):
					tokens = append(tokens, unhex(at(i+2))<<4|unhex(at(i+3)))
					i += 3
				case c == '\\' && at(i+1) != 0:
					i++
					switch c = line[i]; c {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					}
					tokens = append(tokens, c)
				case c == '"':
					// The closing quote must be followed by a space or
					// nothing at all.
					if n := at(i + 1); n != 0 && !isSpace(n) {
						return tokens, ends, false
					}
					done = true
				case c == 0:
					return tokens, ends, false
				default:
					tokens = append(tokens, c)
				}
			case inSingle:
				switch {
				case c == '\\' && at(i+1) == '\'':
					i++
					tokens = append(tokens, '\'')
				case c == '\'':
					if n := at(i + 1); n != 0 && !isSpace(n) {
						return tokens, ends, false
					}
					done = true
				case c == 0:
					return tokens, ends, false
				default:
					tokens = append(tokens, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDouble = true
				case '\'':
					inSingle = true
				default:
					tokens = append(tokens, c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		ends = append(ends, len(tokens))
	}
}

// SplitArgs is AppendSplitArgs with the arguments as strings.
func SplitArgs(line string) ([]string, bool) {
	tokens, ends, ok := AppendSplitArgs([]byte(line), nil, nil)
	if !ok || len(ends) == 0 {
		return nil, ok
	}
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i] = string(tokens[start:end])
		start = end
	}
	return out, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
