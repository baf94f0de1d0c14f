package engine

// Server commands: INFO, CONFIG, COMMAND, DBSIZE, FLUSHDB...

func serverCommands() []*Command {
	return []*Command{}
}
