package engine

// LOLWUT [VERSION v] [args...] (lolwut.c).
//
// Redis 7.0's own LOLWUT (any version other than 5 and 6) is one line,
// "Redis ver. " and the version, which lockredis gives with the
// redis_version INFO reports. VERSION 5 (Georg Nees's "Schotter") and
// VERSION 6 (a city skyline) draw with the C library's rand(), so their
// art differs from call to call and from Redis's: lockredis checks their
// arguments as Redis does and answers their closing lines without the
// art.

func lolwutCommands() []*Command {
	return []*Command{{Name: "lolwut", Handler: cmdLolwut}}
}

func cmdLolwut(c *Call) {
	args := c.Args[1:]
	art := uint32(0) // 0: Redis's own version, else 5 or 6
	if len(args) >= 2 && EqualFold(args[0], "version") {
		v, ok := ParseInt(args[1])
		if !ok {
			c.Err(ErrNotInteger)
			return
		}
		// Redis formats the version with "%u.0.0" from an unsigned int
		// and looks at its first characters.
		if u := uint32(v); u == 5 || u == 6 {
			art = u
		}
		args = args[2:]
	}
	var maxArgs int
	var text string
	switch art {
	case 0:
		c.W.Verbatim("txt", "Redis ver. "+Version+"\n")
		return
	case 5: // columns, squares per row, squares per column
		maxArgs, text = 3, "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. "
	case 6: // columns, rows
		maxArgs, text = 2, "\nDedicated to the 8 bit game developers of past and present.\n"+
			"Original 8 bit image from Plaguemon by hikikomori. Redis ver. "
	}
	for i := 0; i < len(args) && i < maxArgs; i++ {
		if _, ok := ParseInt(args[i]); !ok {
			c.Err(ErrNotInteger)
			return
		}
	}
	c.W.Verbatim("txt", text+Version+"\n")
}
