package keyspace

import (
	"time"
)

// Persistence reports the state of the append-only file.
func (s *Store) Persistence() PersistInfo {
	p := s.persist
	if p == nil {
		return PersistInfo{LastSave: s.started.Unix()}
	}
	size, _ := p.size()
	werr, ferr := p.status()
	return PersistInfo{
		Enabled: true, Path: p.path, Fsync: p.policy,
		RewriteInProgress: p.rewriting.Load(), Rewrites: p.rewrites.Load(),
		RewriteFailed: p.rewriteFailed.Load(), CurrentSize: size, BaseSize: p.baseSize.Load(),
		LastWriteErr: werr, LastFsyncErr: ferr, LastSave: p.lastSave.Load(),
		LastErrno: p.lastErrnoOf(), Misconf: s.DiskError(), FsyncErrors: p.fsyncErrors.Load(),
	}
}

// RewriteAOF starts a background rewrite of the append-only file.
func (s *Store) RewriteAOF() error {
	if s.persist == nil {
		return ErrNoAOF
	}
	return s.persist.rewrite()
}

// SyncAOF fsyncs the append-only file now (SAVE).
func (s *Store) SyncAOF() error {
	if s.persist == nil {
		return nil
	}
	return s.persist.fsync()
}

// DiskError is the MISCONF reply write commands get while the append-only
// file cannot be written or fsynced, "" when it can (or there is none).
func (s *Store) DiskError() string {
	if s.persist == nil {
		return ""
	}
	if m := s.persist.misconf.Load(); m != nil {
		return *m
	}
	return ""
}

// RestartFenceRemaining is how long the restart fence still refuses new
// keys (0 when there is none).
func (s *Store) RestartFenceRemaining() time.Duration {
	if s.fence == nil || !s.fence.active.Load() {
		return 0
	}
	return max(time.Until(s.fence.until), 0)
}

// RestartFenceHolds is how long the restart fence still refuses new keys,
// 0 when it does not; the first call to find it over lifts it for good
// (and logs so).
func (s *Store) RestartFenceHolds() time.Duration {
	if !s.fence.active.Load() {
		return 0
	}
	left := time.Until(s.fence.until)
	if left <= 0 {
		if s.fence.active.CompareAndSwap(true, false) {
			s.Logf("notice", "Restart fence lifted: new keys accepted again")
		}
		return 0
	}
	return left
}

// Loading reports Load's progress.
func (s *Store) Loading() LoadingInfo {
	l := &s.loading
	li := LoadingInfo{Loading: l.active.Load()}
	ms := l.start.Load()
	if !li.Loading || ms == 0 {
		return li
	}
	li.Start = time.UnixMilli(ms)
	li.TotalBytes = l.total.Load()
	switch l.step.Load() {
	case loadRead:
		li.LoadedBytes = min(l.read.Load(), li.TotalBytes)
	case loadIndex, loadDone:
		li.LoadedBytes = li.TotalBytes
	}
	remaining := int64(1)
	if li.TotalBytes > 0 {
		li.Percent = float64(li.LoadedBytes) / float64(li.TotalBytes) * 100
		remaining = li.TotalBytes - li.LoadedBytes
	}
	// Redis's estimate, in whole seconds: the time so far, scaled by
	// what is left.
	elapsed := int64(time.Since(li.Start) / time.Second)
	eta := int64(1)
	if elapsed > 0 {
		eta = elapsed * remaining / (li.LoadedBytes + 1)
	}
	li.ETA = time.Duration(eta) * time.Second
	return li
}

// Loaded reports whether Load has finished successfully: the keyspace is
// there and commands run.
func (s *Store) Loaded() bool { return s.loading.ok.Load() }

// IsLoading reports whether Load has not finished yet (it may not have
// started): the cheap check of the LOADING refusal.
func (s *Store) IsLoading() bool { return s.loading.active.Load() }

// AfterLoad runs fn once the keyspace is loaded, before commands that
// need it are let through (luasvc reads the stored functions): at the end
// of Load, or at once when it already ran. Call it before Load starts or
// after it returned, not while it runs.
func (s *Store) AfterLoad(fn func()) {
	if s.Loaded() {
		fn()
		return
	}
	s.loading.after = append(s.loading.after, fn)
}

// ReserveTokens makes sure fencing tokens are reserved on disk before a
// command that may create keys runs, so that a failing disk refuses the
// command instead of handing out tokens that could repeat after a crash.
func (s *Store) ReserveTokens() error {
	if s.tokens.reserve == nil {
		return nil
	}
	return s.tokens.ensureReserved()
}

// TokenStats reports the last fencing token handed out and how many this
// store handed out since Load (both 0 before Load finished): for
// monitoring, read outside transactions.
func (s *Store) TokenStats() (last, issued uint64) {
	if !s.Loaded() {
		return 0, 0
	}
	last = s.tokens.issued.Load()
	return last, last - s.tokens.first
}
