package main

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// Redis's adjustOpenFilesLimit over a played system: hard is the most the
// system lets the process set.
func TestAdjustLimit(t *testing.T) {
	for _, tc := range []struct {
		name            string
		maxclients      int
		cur, hard       uint64
		getErr          bool
		wantMax         int
		wantOK          bool
		wantLog, noteOK string
	}{
		{name: "enough", maxclients: 10000, cur: 20000, hard: 20000, wantMax: 10000, wantOK: true},
		{name: "raised", maxclients: 10000, cur: 1024, hard: 1 << 20, wantMax: 10000, wantOK: true,
			wantLog: "Increased maximum number of open files to 10032 (it was originally set to 1024)."},
		{name: "partly", maxclients: 10000, cur: 1024, hard: 5000, wantMax: 5000 - 32 - (10032-5000)%16, wantOK: true,
			wantLog: "maxclients has been reduced to 4960 to compensate for low ulimit."},
		{name: "not at all", maxclients: 10000, cur: 200, hard: 200, wantMax: 168, wantOK: true,
			wantLog: "Server can't set maximum open files to 10032 because of OS error: Operation not permitted."},
		{name: "too low", maxclients: 10000, cur: 20, hard: 20, wantOK: false,
			wantLog: "Your current 'ulimit -n' of 20 is not enough for the server to start. Please increase your open file limit to at least 10032. Exiting."},
		{name: "unknown", maxclients: 10000, getErr: true, wantMax: 992, wantOK: true,
			wantLog: "Unable to obtain the current NOFILE limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			logf := func(level, format string, args ...any) { fmt.Fprintf(&log, format+"\n", args...) }
			get := func() (uint64, error) {
				if tc.getErr {
					return 0, errors.New("no")
				}
				return tc.cur, nil
			}
			set := func(n uint64) error {
				if n > tc.hard {
					return syscall.EPERM
				}
				return nil
			}
			got, ok := adjustLimit(tc.maxclients, logf, get, set)
			if ok != tc.wantOK || ok && got != tc.wantMax {
				t.Errorf("got %d, %v; want %d, %v", got, ok, tc.wantMax, tc.wantOK)
			}
			if !strings.Contains(log.String(), tc.wantLog) || tc.wantLog == "" && log.Len() != 0 {
				t.Errorf("log:\n%s\nwant %q", log.String(), tc.wantLog)
			}
		})
	}
}
