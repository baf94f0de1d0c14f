package compat

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"
)

// The binary's monitoring endpoint (cmd/lockredis/metrics.go): what it
// serves parses as Prometheus's text exposition format, and its values
// follow the workload.

// startMetricsBinary starts the built lockredis with --metrics-bind on a
// free port and returns the server's address and the endpoint's base URL.
func startMetricsBinary(t *testing.T, args ...string) (addr, base string) {
	t.Helper()
	bin := lockredisBinary(t)
	if !slices.Contains(args, "--dir") {
		args = append([]string{"--dir", t.TempDir()}, args...)
	}
	var metrics string
	addr = startProcess(t, "lockredis", func(port int) *exec.Cmd {
		metrics = "127.0.0.1:" + strconv.Itoa(freePort(t))
		all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--metrics-bind", metrics}, args...)
		return exec.Command(bin, all...)
	}, stopBinary)
	return addr, "http://" + metrics
}

// scrape reads /metrics and parses it as the text exposition format.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("/metrics Content-Type %q", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not in the text exposition format: %v", err)
	}
	return families
}

// value is the value of the sample of family name whose labels are
// labels ("k=v" pairs); -1 when there is none. Histograms give their count.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.Metric {
		for _, l := range labels {
			k, v, _ := strings.Cut(l, "=")
			found := false
			for _, lp := range m.Label {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMetricsFollowWorkload: a scrape before and after a workload of
// plain commands, errors, a queued lock hand-over and a SESSION lock whose
// connection closes.
func TestMetricsFollowWorkload(t *testing.T) {
	addr, base := startMetricsBinary(t, "--appendonly", "yes", "--appendfsync", "always")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	if v, err := rdb.ConfigGet(ctx, "metrics-bind").Result(); err != nil || v["metrics-bind"] != strings.TrimPrefix(base, "http://") {
		t.Fatalf("CONFIG GET metrics-bind: %v %v", v, err)
	}
	before := scrape(t, base)
	if v := value(before, "lockredis_ready"); v != 1 {
		t.Fatalf("lockredis_ready %v", v)
	}

	rdb.Set(ctx, "plain", "v", 0)
	if err := rdb.Incr(ctx, "plain").Err(); err == nil {
		t.Fatal("INCR of a non-number succeeded")
	}
	rdb.Get(ctx, "missing")
	if tok, err := rdb.Do(ctx, "LOCK.ACQUIRE", "job", "owner1", 30000).Int64(); err != nil || tok <= 0 {
		t.Fatalf("LOCK.ACQUIRE: %v %v", tok, err)
	}
	waiter := redis.NewClient(&redis.Options{Addr: addr})
	defer waiter.Close()
	granted := make(chan error, 1)
	go func() { granted <- waiter.Do(ctx, "LOCK.ACQUIRE", "job", "owner2", 30000, "WAIT", 10000).Err() }()
	waitFor(t, func() bool { return value(scrape(t, base), "lockredis_lock_waiters") == 1 })
	if n, err := rdb.Do(ctx, "LOCK.RELEASE", "job", "owner1").Int64(); err != nil || n != 1 {
		t.Fatalf("LOCK.RELEASE: %v %v", n, err)
	}
	if err := <-granted; err != nil {
		t.Fatalf("the waiter: %v", err)
	}
	session := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1})
	if err := session.Do(ctx, "LOCK.ACQUIRE", "sess", "owner3", 30000, "SESSION").Err(); err != nil {
		t.Fatal(err)
	}
	session.Close()
	waitFor(t, func() bool { return value(scrape(t, base), "lockredis_lock_session_releases_total") == 1 })

	after := scrape(t, base)
	for _, tc := range []struct {
		name   string
		labels []string
		grew   float64 // at least this much more than before
	}{
		{"lockredis_commands_processed_total", nil, 8},
		{"lockredis_command_calls_total", []string{"command=set"}, 1},
		{"lockredis_command_calls_total", []string{"command=lock.acquire"}, 3},
		{"lockredis_command_failed_calls_total", []string{"command=incr"}, 1},
		{"lockredis_error_replies_total", []string{"prefix=ERR"}, 1},
		{"lockredis_keyspace_misses_total", nil, 1},
		{"lockredis_connections_received_total", nil, 2},
		{"lockredis_lock_grants_total", nil, 3},
		{"lockredis_lock_queue_grants_total", nil, 1},
		{"lockredis_lock_wait_seconds", nil, 1},
		{"lockredis_lock_session_releases_total", nil, 1},
		{"lockredis_fencing_tokens_issued_total", nil, 3},
		{"lockredis_fencing_token_last", nil, 3},
		{"lockredis_aof_fsync_seconds", nil, 1},
		{"lockredis_aof_current_size_bytes", nil, 1},
		{"lockredis_memory_used_bytes", nil, 1},
		{"lockredis_net_input_bytes_total", nil, 1},
	} {
		b, a := value(before, tc.name, tc.labels...), value(after, tc.name, tc.labels...)
		if b < 0 {
			b = 0 // a command's series appears once it is called
		}
		if a < b+tc.grew {
			t.Errorf("%s%v: %v -> %v, want at least %v more", tc.name, tc.labels, b, a, tc.grew)
		}
	}
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"lockredis_locks_held", nil, 1}, // owner2's
		{"lockredis_lock_waiters", nil, 0},
		{"lockredis_db_keys", []string{"db=0"}, 2}, // plain, job
		{"lockredis_db_keys", []string{"db=1"}, 0},
		{"lockredis_aof_enabled", nil, 1},
		{"lockredis_aof_last_write_ok", nil, 1},
		{"lockredis_restart_fence_active", nil, 0},
		{"lockredis_loading", nil, 0},
		{"lockredis_ready", nil, 1},
	} {
		if v := value(after, tc.name, tc.labels...); v != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, v, tc.want)
		}
	}
	// The wait histogram's buckets are cumulative and end at +Inf = count.
	h := after["lockredis_lock_wait_seconds"].Metric[0].Histogram
	last := uint64(0)
	for _, b := range h.Bucket {
		if b.GetCumulativeCount() < last {
			t.Errorf("bucket le=%v: %d after %d", b.GetUpperBound(), b.GetCumulativeCount(), last)
		}
		last = b.GetCumulativeCount()
	}
	if last > h.GetSampleCount() || h.GetSampleSum() <= 0 {
		t.Errorf("histogram: last bucket %d, count %d, sum %v", last, h.GetSampleCount(), h.GetSampleSum())
	}
	if code, body := httpGet(t, base+"/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz: %d %q", code, body)
	}
	if code, body := httpGet(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
}

// TestMetricsRestartFence: after an unclean stop the server is alive but
// not ready: /readyz says why, the metrics show the fence, and the
// refusals count as TRYAGAIN errors.
func TestMetricsRestartFence(t *testing.T) {
	dir := t.TempDir()
	// The state a crash leaves: the last run was still "running" and had
	// granted a 60 s lock.
	state := "marker running\nmax-ttl-ms 60000\ntokens-reserved 0\n"
	if err := os.WriteFile(filepath.Join(dir, "lockredis.state"), []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, base := startMetricsBinary(t, "--dir", dir)
	code, body := httpGet(t, base+"/readyz")
	if code != 503 || !strings.HasPrefix(body, "not ready: restart fence active (") {
		t.Errorf("/readyz during the fence: %d %q", code, body)
	}
	if code, _ := httpGet(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz during the fence: %d", code)
	}
	ctx := context.Background()
	// go-redis retries TRYAGAIN by default: once is enough here.
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.SetNX(ctx, "lock", "me", time.Minute).Err(); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
		t.Fatalf("SET NX during the fence: %v", err)
	}
	fams := scrape(t, base)
	if v := value(fams, "lockredis_restart_fence_active"); v != 1 {
		t.Errorf("lockredis_restart_fence_active %v", v)
	}
	if v := value(fams, "lockredis_restart_fence_remaining_seconds"); v <= 0 || v > 60 {
		t.Errorf("lockredis_restart_fence_remaining_seconds %v", v)
	}
	if v := value(fams, "lockredis_ready"); v != 0 {
		t.Errorf("lockredis_ready %v", v)
	}
	if v := value(fams, "lockredis_error_replies_total", "prefix=TRYAGAIN"); v != 1 {
		t.Errorf("TRYAGAIN replies %v", v)
	}
}
