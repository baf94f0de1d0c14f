package compat

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBinaryFlagsAndConfigFile checks the command line docs/configuration.md
// documents: a redis.conf-style file as the first argument, flags on top.
func TestBinaryFlagsAndConfigFile(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "lockredis.conf")
	body := "# a redis.conf subset\nrequirepass \"from file\"\ndatabases 4\nloglevel warning\ndaemonize no\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startBinary(t, conf, "--databases", "8")
	c := dialRaw(t, addr)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"GET", "k"}, "-NOAUTH Authentication required.\r\n"},
		{[]string{"AUTH", "from file"}, "+OK\r\n"},
		{[]string{"CONFIG", "GET", "databases"}, "*2\r\n$9\r\ndatabases\r\n$1\r\n8\r\n"},
		{[]string{"SELECT", "7"}, "+OK\r\n"},
		{[]string{"SELECT", "8"}, "-ERR DB index is out of range\r\n"},
		{[]string{"CONFIG", "GET", "save"}, "*2\r\n$4\r\nsave\r\n$0\r\n\r\n"},
		{[]string{"CONFIG", "GET", "appendonly"}, "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"},
	} {
		if got := c.do(t, tc.args...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
	}
}
