package engine

func hllCommands() []*Command { return nil }
