package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTLSDirectives: tls-* lines of a config file are read or refused,
// and the settings with no effect in lockredis are refused at validation
// unless they ask for nothing.
func TestTLSDirectives(t *testing.T) {
	for _, tc := range []struct {
		line    string
		readErr string // from reading the file
		valErr  string // from validateTLS
	}{
		{line: "tls-port 6380"},
		{line: "tls-port six", readErr: "must be an integer"},
		{line: "tls-port 70000", valErr: "between 0 and 65535"},
		{line: "tls-auth-clients OPTIONAL"},
		{line: "tls-auth-clients maybe", valErr: "no, yes, optional"},
		{line: "tls-session-caching no"},
		{line: "tls-session-caching sometimes", valErr: "tls-session-caching"},
		{line: "tls-replication no"},
		{line: "tls-cluster NO"},
		{line: "tls-replication yes", valErr: "tls-replication is not supported"},
		{line: `tls-ciphersuites ""`},
		{line: "tls-ciphersuites TLS_AES_128_GCM_SHA256", valErr: "tls-ciphersuites is not supported"},
		{line: "tls-prefer-server-ciphers no", valErr: "tls-prefer-server-ciphers is not supported"},
		{line: "tls-session-cache-size 100", valErr: "not supported"},
		{line: "tls-key-file-pass secret", valErr: "decrypt the key"},
		{line: "tls-unknown x", readErr: "Bad directive"},
		{line: "tls-cert-file a b", readErr: "wrong number of arguments"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "redis.conf")
			if err := os.WriteFile(path, []byte(tc.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := readConfigFile(path, defaults())
			if tc.readErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.readErr) {
					t.Fatalf("read: %v, want %q", err, tc.readErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cfg.tls.port = 0 // validate the words without loading files
			if strings.HasPrefix(tc.line, "tls-port 70000") {
				cfg.tls.port = 70000
			}
			_, err = validateTLS(&cfg.tls)
			if tc.valErr == "" && err != nil || tc.valErr != "" && (err == nil || !strings.Contains(err.Error(), tc.valErr)) {
				t.Fatalf("validate: %v, want %q", err, tc.valErr)
			}
		})
	}
}
