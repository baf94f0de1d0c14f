package engine

// trackState is one client's tracking mode, nil while tracking is off.
// Guarded by tracker.mu.
type trackState struct {
	bcast, optin, optout, noloop bool
	// caching: CLIENT CACHING YES (OPTIN) or NO (OPTOUT) was given for the
	// next command.
	caching bool
	// brokenRedir: the redirect client was gone when a message was due.
	brokenRedir bool
	redirect    int64    // 0: messages go to the client itself
	prefixes    []string // BCAST prefixes, sorted
}
