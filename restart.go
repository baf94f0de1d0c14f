package lockredis

import "errors"

// Restart stops the server and starts it again on the same addresses, as
// redis-server restarted with persistence: clients are disconnected (and
// reconnect), their connection state (SELECT, MULTI, subscriptions,
// SESSION locks) is gone, and the keys are all there, with their expiry
// and fencing tokens. It also restarts a server that Close stopped (or
// SHUTDOWN), as miniredis's Restart does.
//
// With Options.AppendOnly the new server reads the file, as any start
// does; otherwise Close kept a copy of the keyspace in memory. Either way
// the stop was clean, so no restart fence applies (RestartFence "auto"
// fences only after a crash; a fixed duration without Dir fences every
// start, this one too). Fencing tokens keep growing after the restart.
// What a real restart resets is reset: CONFIG SET changes, the script
// cache, INFO's counters (CommandCount...), CLIENT PAUSE, the slow log.
// The clock, SetError and Seed carry over. Do and the direct helpers
// start afresh on database 0, as new clients. A command that Pause held
// runs as the old server stops, and its reply is lost with the connection
// (a client cannot tell this from a write that landed just before a crash).
//
// Restart must not run while other goroutines call the Server's methods
// (clients on sockets are fine: they are disconnected).
func (s *Server) Restart() error {
	s.doMu.Lock()
	defer s.doMu.Unlock()
	s.helperMu.Lock()
	defer s.helperMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		return errors.New("lockredis: Restart of a server that was never started")
	}
	if !s.closed {
		if err := s.close(); err != nil {
			return err
		}
	}
	return s.start()
}

// SetError makes the server answer every command with msg as its error
// reply, until SetError(""), to test how a client copes with a failing
// Redis. It goes through the one dispatcher, so clients on sockets, MULTI,
// scripts' redis.call and Do all get it; the direct helpers (Get, Set,
// DB(n)..., the Check functions) do not, so that a test can still look at
// its data. Set before Start, it applies from the start. msg is sent as
// written (line breaks become spaces): start it with an error code, as
// "ERR something broke" or "LOADING Redis is loading the dataset in
// memory", which clients read as the error's kind. A client in MULTI has
// its transaction doomed; EXEC or DISCARD ends it.
func (s *Server) SetError(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forcedErr = msg
	if s.eng != nil { // else Start applies it
		s.eng.SetForcedError(msg)
	}
}

// Seed makes the random picks of SPOP, SRANDMEMBER, HRANDFIELD,
// ZRANDMEMBER and RANDOMKEY reproducible: after Seed(n), the same
// commands on the same data pick the same elements, on every run. Each
// server has its own generator; Restart seeds the new one with the same
// seed again.
func (s *Server) Seed(seed int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seed = &seed
	if s.eng != nil { // else Start applies it
		s.eng.Seed(seed)
	}
}

// CommandCount is the number of commands the server ran since it started
// (INFO's total_commands_processed): from clients, Do, and scripts'
// redis.call; not the direct helpers' (Get, Set, DB(n)...).
func (s *Server) CommandCount() int { return int(s.eng.Stats.Commands.Load()) }

// CurrentConnectionCount is the number of clients connected now.
func (s *Server) CurrentConnectionCount() int { return s.srv.ClientCount() }

// TotalConnectionCount is the number of connections accepted since the
// server started (INFO's total_connections_received).
func (s *Server) TotalConnectionCount() int { return int(s.eng.Stats.Connections.Load()) }
