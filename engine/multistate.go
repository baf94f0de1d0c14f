package engine

type multiState struct {
	queue  []queuedCommand
	failed bool // a command was rejected while queuing: EXEC aborts
}

type queuedCommand struct {
	cmd  *Command
	args [][]byte
}
