package engine

import (
	"strings"
	"testing"
)

// parseInfo splits an INFO reply into sections of fields, checking the
// layout Redis uses: "# Name" headers, "k:v" lines ending in CRLF, one
// blank line between sections and none after the last.
func parseInfo(t *testing.T, rep Reply) (names []string, fields map[string]map[string]string) {
	t.Helper()
	if rep.Kind != KindVerbatim {
		t.Fatalf("INFO replied %s, want a verbatim string", rep)
	}
	fields = map[string]map[string]string{}
	if rep.Str == "" {
		return nil, fields
	}
	if !strings.HasSuffix(rep.Str, "\r\n") || strings.HasSuffix(rep.Str, "\r\n\r\n") {
		t.Fatalf("INFO must end with one CRLF: %q", rep.Str[max(0, len(rep.Str)-20):])
	}
	for i, block := range strings.Split(strings.TrimSuffix(rep.Str, "\r\n"), "\r\n\r\n") {
		lines := strings.Split(block, "\r\n")
		name, ok := strings.CutPrefix(lines[0], "# ")
		if !ok {
			t.Fatalf("section %d starts with %q", i, lines[0])
		}
		names = append(names, name)
		fields[name] = map[string]string{}
		for _, l := range lines[1:] {
			k, v, ok := strings.Cut(l, ":")
			if !ok || k == "" || strings.ContainsAny(l, "\r\n") {
				t.Fatalf("bad line %q in section %s", l, name)
			}
			fields[name][k] = v
		}
	}
	return names, fields
}

// The sections of INFO and INFO default (Redis 7.0), and of INFO all
// (Redis 7.0's, then lockredis's Locks).
var (
	defaultInfoSections = []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Errorstats", "Cluster", "Keyspace"}
	allInfoSections     = []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Commandstats", "Errorstats", "Cluster", "Keyspace", "Locks"}
)

func TestInfoSections(t *testing.T) {
	te := newTestEngine(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{cmd("INFO"), defaultInfoSections},
		{cmd("INFO", "default"), defaultInfoSections},
		{cmd("INFO", "commandstats", "server"), []string{"Server", "Commandstats"}},
		{cmd("INFO", "module_list"), []string{"Modules"}},
		{cmd("INFO", "ALL"), allInfoSections},
		{cmd("INFO", "everything"), allInfoSections},
		{cmd("INFO", "server"), []string{"Server"}},
		{cmd("INFO", "SERVER"), []string{"Server"}},
		{cmd("INFO", "keyspace", "server"), []string{"Server", "Keyspace"}},
		{cmd("INFO", "cluster", "server"), []string{"Server", "Cluster"}},
		{cmd("INFO", "cpu", "cpu"), []string{"CPU"}},
		{cmd("INFO", "locks"), []string{"Locks"}},
		{cmd("INFO", "foo"), nil},
		{cmd("INFO", "foo", "clients"), []string{"Clients"}},
		{cmd("INFO", "all", "server"), allInfoSections},
	} {
		names, _ := parseInfo(t, te.do(tc.args...))
		if strings.Join(names, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: sections %q, want %q", tc.args, names, tc.want)
		}
	}
	if got := te.do("INFO", "foo"); got.Kind != KindVerbatim || got.Str != "" {
		t.Errorf("INFO foo = %s, want an empty string", got)
	}
}

func TestInfoFields(t *testing.T) {
	te := newTestEngineConfig(t, Config{Params: map[string]string{"port": "7777", "appendonly": "yes", "dir": t.TempDir()},
		Version: "v9.9.9", ConfigFile: "/etc/lr.conf"})
	te.run([]step{
		{cmd("SET", "a", "1"), "OK"},
		{cmd("SET", "b", "1", "PX", "5000"), "OK"},
		{cmd("SELECT", "3"), "OK"},
		{cmd("SET", "c", "1"), "OK"},
		{cmd("SELECT", "0"), "OK"},
	})
	_, f := parseInfo(t, te.do("INFO", "everything"))
	for _, want := range []struct{ section, key, value string }{
		{"Server", "redis_version", Version},
		{"Server", "redis_mode", "standalone"},
		{"Server", "tcp_port", "7777"},
		{"Server", "config_file", "/etc/lr.conf"},
		{"Server", "lockredis_version", "v9.9.9"},
		{"Clients", "connected_clients", "1"},
		{"Clients", "maxclients", "10000"},
		{"Clients", "blocked_clients", "0"},
		{"Memory", "maxmemory", "0"},
		{"Memory", "maxmemory_human", "0B"},
		{"Memory", "maxmemory_policy", "noeviction"},
		{"Persistence", "loading", "0"},
		{"Persistence", "aof_enabled", "1"},
		{"Persistence", "aof_rewrite_in_progress", "0"},
		{"Persistence", "aof_last_write_status", "ok"},
		{"Persistence", "rdb_changes_since_last_save", "0"},
		{"Replication", "role", "master"},
		{"Replication", "connected_slaves", "0"},
		{"Replication", "master_repl_offset", "0"},
		{"Cluster", "cluster_enabled", "0"},
		{"Keyspace", "db0", "keys=2,expires=1,avg_ttl=0"},
		{"Keyspace", "db3", "keys=1,expires=0,avg_ttl=0"},
	} {
		if got, ok := f[want.section][want.key]; !ok || got != want.value {
			t.Errorf("%s %s = %q (present %v), want %q", want.section, want.key, got, ok, want.value)
		}
	}
	// Fields that exist with values that vary.
	for section, keys := range map[string][]string{
		"Server":      {"os", "arch_bits", "process_id", "run_id", "uptime_in_seconds", "uptime_in_days", "executable", "server_time_usec", "hz"},
		"Memory":      {"used_memory", "used_memory_human", "used_memory_rss"},
		"Stats":       {"total_connections_received", "total_commands_processed", "rejected_connections", "expired_keys", "keyspace_hits", "keyspace_misses", "pubsub_channels", "pubsub_patterns", "total_error_replies"},
		"Replication": {"master_replid"},
		"CPU":         {"used_cpu_sys", "used_cpu_user"},
	} {
		for _, k := range keys {
			if f[section][k] == "" {
				t.Errorf("%s has no %s", section, k)
			}
		}
	}
	if id := f["Replication"]["master_replid"]; len(id) != 40 || id == f["Server"]["run_id"] {
		t.Errorf("master_replid %q, run_id %q", id, f["Server"]["run_id"])
	}
	if len(f["Keyspace"]) != 2 {
		t.Errorf("keyspace lists %v, want only the non-empty databases", f["Keyspace"])
	}

	// Defaults when the assembler gives no params.
	_, f = parseInfo(t, newTestEngine(t).do("INFO"))
	if f["Server"]["tcp_port"] != "6379" || f["Persistence"]["aof_enabled"] != "0" || f["Server"]["lockredis_version"] == "" {
		t.Errorf("defaults: tcp_port %q aof_enabled %q lockredis_version %q",
			f["Server"]["tcp_port"], f["Persistence"]["aof_enabled"], f["Server"]["lockredis_version"])
	}
	if len(f["Keyspace"]) != 0 {
		t.Errorf("empty keyspace lists %v", f["Keyspace"])
	}
}

func TestInfoStats(t *testing.T) {
	te := newTestEngine(t)
	te.Stats.Connections.Add(7)
	te.Stats.KeyspaceHits.Add(3)
	te.run([]step{{cmd("CONFIG", "RESETSTAT", "x"), "(error) ERR wrong number of arguments for 'config|resetstat' command"}})
	_, f := parseInfo(t, te.do("INFO", "stats"))
	if f["Stats"]["total_connections_received"] != "7" || f["Stats"]["keyspace_hits"] != "3" {
		t.Errorf("stats %v", f["Stats"])
	}
	te.run([]step{{cmd("CONFIG", "RESETSTAT"), "OK"}})
	_, f = parseInfo(t, te.do("INFO", "stats"))
	if f["Stats"]["total_connections_received"] != "0" || f["Stats"]["keyspace_hits"] != "0" {
		t.Errorf("after RESETSTAT: %v", f["Stats"])
	}
}

// fakePubsub is a Publisher that counts subscriptions.
type fakePubsub struct{}

func (fakePubsub) Receivers([]byte) int                     { return 0 }
func (fakePubsub) Deliver(_, _ []byte)                      {}
func (fakePubsub) Counts() (channels, patterns, shards int) { return 3, 2, 1 }

func TestInfoPubsubCounts(t *testing.T) {
	te := newTestEngine(t)
	_, f := parseInfo(t, te.do("INFO", "stats"))
	if f["Stats"]["pubsub_channels"] != "0" || f["Stats"]["pubsub_patterns"] != "0" {
		t.Errorf("without pub/sub: %v", f["Stats"])
	}
	te.SetPublisher(fakePubsub{})
	_, f = parseInfo(t, te.do("INFO", "stats"))
	if f["Stats"]["pubsub_channels"] != "3" || f["Stats"]["pubsub_patterns"] != "2" || f["Stats"]["pubsubshard_channels"] != "1" {
		t.Errorf("with pub/sub: %v", f["Stats"])
	}
}

func TestInfoInsideTransaction(t *testing.T) {
	te := newTestEngine(t)
	c := te.newClient()
	playClients(t, []clientStep{
		{c, cmd("MULTI"), "OK"},
		{c, cmd("SET", "k", "v"), "QUEUED"},
		{c, cmd("INFO", "keyspace"), "QUEUED"},
		{c, cmd("EXEC"), `[OK "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n"]`},
	})
}
