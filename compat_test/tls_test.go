package compat

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// tlsFiles are a CA, a server certificate it signed (SANs 127.0.0.1 and
// localhost) and a client certificate it signed, written as PEM files to
// a temporary directory; nothing is committed.
type tlsFiles struct {
	dir                       string
	ca, serverCert, serverKey string
	clientCert, clientKey     string
	caPool                    *x509.CertPool
	client                    tls.Certificate
	otherClient               tls.Certificate // signed by another CA
	serverTLS                 *tls.Config     // for embedded servers
}

func genTLSFiles(t testing.TB) *tlsFiles {
	t.Helper()
	dir := t.TempDir()
	f := &tlsFiles{dir: dir}
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	serial := int64(1)
	mkCert := func(tmpl *x509.Certificate, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) ([]byte, *x509.Certificate) {
		serial++
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore = time.Now().Add(-time.Hour)
		tmpl.NotAfter = time.Now().Add(24 * time.Hour)
		if parent == nil {
			parent = tmpl
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
		if err != nil {
			t.Fatal(err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return der, c
	}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keyDER := func(k *ecdsa.PrivateKey) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return der
	}
	mkCA := func(name string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
		k := newKey()
		der, c := mkCert(&x509.Certificate{Subject: pkix.Name{CommonName: name}, IsCA: true,
			BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil, &k.PublicKey, k)
		return c, k, der
	}
	caCert, caKey, caDER := mkCA("lockredis test CA")
	f.ca = write("ca.crt", "CERTIFICATE", caDER)
	f.caPool = x509.NewCertPool()
	f.caPool.AddCert(caCert)

	sk := newKey()
	serverDER, _ := mkCert(&x509.Certificate{Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}},
		caCert, &sk.PublicKey, caKey)
	f.serverCert = write("server.crt", "CERTIFICATE", serverDER)
	f.serverKey = write("server.key", "PRIVATE KEY", keyDER(sk))

	ck := newKey()
	clientDER, _ := mkCert(&x509.Certificate{Subject: pkix.Name{CommonName: "client"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}},
		caCert, &ck.PublicKey, caKey)
	f.clientCert = write("client.crt", "CERTIFICATE", clientDER)
	f.clientKey = write("client.key", "PRIVATE KEY", keyDER(ck))
	f.client = tls.Certificate{Certificate: [][]byte{clientDER}, PrivateKey: ck}

	otherCA, otherKey, _ := mkCA("another CA")
	ok := newKey()
	otherDER, _ := mkCert(&x509.Certificate{Subject: pkix.Name{CommonName: "stranger"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}},
		otherCA, &ok.PublicKey, otherKey)
	f.otherClient = tls.Certificate{Certificate: [][]byte{otherDER}, PrivateKey: ok}

	cfg, err := lockredis.TLSFiles{CertFile: f.serverCert, KeyFile: f.serverKey, CACertFile: f.ca}.Config()
	if err != nil {
		t.Fatal(err)
	}
	f.serverTLS = cfg
	return f
}

// clientTLS is a client configuration trusting the test CA, with the
// given client certificate (none when cert is nil).
func (f *tlsFiles) clientTLS(cert *tls.Certificate) *tls.Config {
	cfg := &tls.Config{RootCAs: f.caPool, ServerName: "127.0.0.1"}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return cfg
}

// serverArgs are the tls-* flags of a server on tlsPort with these files.
func (f *tlsFiles) serverArgs(tlsPort int, extra ...string) []string {
	return append([]string{"--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", f.serverCert,
		"--tls-key-file", f.serverKey, "--tls-ca-cert-file", f.ca}, extra...)
}

// tlsPing connects to addr with cfg, sends PING and returns the reply.
// With TLS 1.3 the server checks the client's certificate after the
// client's side of the handshake is done, so a refusal may show only at
// the first read: either way it is an error here.
func tlsPing(addr string, cfg *tls.Config) (string, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(replyTimeout))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return "", err
	}
	b, err := readReply(bufio.NewReader(c))
	return string(b), err
}

// waitTLSPing polls a TLS port until PING answers, for up to 10 s.
func waitTLSPing(addr string, cfg *tls.Config, exited <-chan struct{}) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-exited:
			return errors.New("process exited")
		default:
		}
		_, err := tlsPing(addr, cfg)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startTLSOnly runs the built binary with --port 0 and a TLS port only
// (plus args), waits until it answers over TLS and returns the TLS
// address and the process, stopped with SIGTERM when the test ends.
func startTLSOnly(t *testing.T, f *tlsFiles, args ...string) (string, *process) {
	t.Helper()
	bin := lockredisBinary(t)
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := freePort(t)
		all := append([]string{"--port", "0", "--bind", "127.0.0.1", "--dir", t.TempDir()}, f.serverArgs(port, args...)...)
		p := &process{cmd: exec.Command(bin, all...), exited: make(chan struct{})}
		dieWithTest(p.cmd)
		p.cmd.Stdout = &p.out
		p.cmd.Stderr = &p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			p.err = p.cmd.Wait()
			close(p.exited)
		}()
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err := waitTLSPing(addr, f.clientTLS(&f.client), p.exited); err != nil {
			stopBinary(p)
			lastErr = err
			continue
		}
		t.Cleanup(func() {
			if err := stopBinary(p); err != nil {
				t.Error(err)
			}
		})
		return addr, p
	}
	t.Fatalf("lockredis with only a TLS port did not come up: %v", lastErr)
	return "", nil
}

// requireRedisCLITLS finds redis-cli and checks it was built with TLS.
// A redis-cli without TLS skips the test with a message, also on CI: the
// sub-test cannot run there, and the reason is printed.
func requireRedisCLITLS(t *testing.T) string {
	t.Helper()
	cli := requireTool(t, "redis-cli")
	out, _ := exec.Command(cli, "--help").CombinedOutput()
	if !strings.Contains(string(out), "--tls") {
		t.Skipf("%s was built without TLS (no --tls in its --help): the redis-cli TLS test cannot run", cli)
	}
	return cli
}

// TestTLSRedisCLI: redis-cli --tls with a client certificate runs PING,
// SET, GET and CONFIG GET tls-port on the TLS port of the built binary,
// which also keeps its plain port; the same commands answer the same on
// redis-server 7.0 started with the same files.
func TestTLSRedisCLI(t *testing.T) {
	cli := requireRedisCLITLS(t)
	f := genTLSFiles(t)
	lockPort := freePort(t)
	startBinary(t, f.serverArgs(lockPort)...)
	redisPort := freePort(t)
	startRedis(t, f.serverArgs(redisPort)...)
	for _, tc := range []struct{ args, want string }{
		{"PING", "PONG"},
		{"SET tls:key v1", "OK"},
		{"GET tls:key", "v1"},
		{"SET lock:cli owner NX PX 30000", "OK"},
		{"SET lock:cli other NX PX 30000", ""},
		{"CONFIG GET tls-auth-clients", "tls-auth-clients\nyes"},
		{"CONFIG GET tls-port", "tls-port\n%PORT%"},
	} {
		for _, srv := range []struct {
			name string
			port int
		}{{"lockredis", lockPort}, {"redis-server", redisPort}} {
			t.Run(srv.name+"/"+tc.args, func(t *testing.T) {
				args := append([]string{"--tls", "--cacert", f.ca, "--cert", f.clientCert, "--key", f.clientKey,
					"-h", "127.0.0.1", "-p", strconv.Itoa(srv.port)}, strings.Fields(tc.args)...)
				out, err := exec.Command(cli, args...).CombinedOutput()
				if err != nil {
					t.Fatalf("redis-cli %s: %v\n%s", tc.args, err, out)
				}
				want := strings.ReplaceAll(tc.want, "%PORT%", strconv.Itoa(srv.port))
				if got := strings.TrimSpace(string(out)); got != want {
					t.Errorf("redis-cli %s = %q, want %q", tc.args, got, want)
				}
			})
		}
	}
}

// goRedisTLS is a go-redis client over TLS with the client certificate.
func goRedisTLS(t *testing.T, addr string, f *tlsFiles, proto int) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, TLSConfig: f.clientTLS(&f.client)})
	t.Cleanup(func() { c.Close() })
	return c
}

const tlsReleaseScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`

// lockOverTLS runs the lock pattern over c: SET NX PX, a second owner
// refused, owner-only release with a Lua script, expiry, and a map reply
// (CONFIG GET) decoded the same in RESP2 and RESP3.
func lockOverTLS(t *testing.T, c *redis.Client, wantTLSPort string) {
	t.Helper()
	ctx := context.Background()
	key := "lock:tls"
	if ok, err := c.SetNX(ctx, key, "owner-1", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("SET NX PX = %v, %v; want true", ok, err)
	}
	if ok, err := c.SetNX(ctx, key, "owner-2", 30*time.Second).Result(); err != nil || ok {
		t.Fatalf("second SET NX = %v, %v; want false", ok, err)
	}
	if n, err := c.Eval(ctx, tlsReleaseScript, []string{key}, "owner-2").Int(); err != nil || n != 0 {
		t.Fatalf("release by a stranger = %v, %v; want 0", n, err)
	}
	if n, err := c.Eval(ctx, tlsReleaseScript, []string{key}, "owner-1").Int(); err != nil || n != 1 {
		t.Fatalf("release by the owner = %v, %v; want 1", n, err)
	}
	if ok, err := c.SetNX(ctx, key, "owner-2", 50*time.Millisecond).Result(); err != nil || !ok {
		t.Fatalf("SET NX after release = %v, %v; want true", ok, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for c.Exists(ctx, key).Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatal("the lock did not expire")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ok, err := c.SetNX(ctx, key, "owner-3", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("SET NX after expiry = %v, %v; want true", ok, err)
	}
	c.Del(ctx, key)
	got, err := c.ConfigGet(ctx, "tls-port").Result()
	if err != nil || got["tls-port"] != wantTLSPort {
		t.Fatalf("CONFIG GET tls-port = %v, %v; want %s", got, err, wantTLSPort)
	}
}

// TestTLSGoRedisLocks: go-redis v9 with a client certificate, RESP2 and
// RESP3, takes, refuses, releases and lets expire locks over TLS, on the
// built binary with both ports and with only the TLS port, and on
// redis-server with the same files.
func TestTLSGoRedisLocks(t *testing.T) {
	f := genTLSFiles(t)
	bothPort := freePort(t)
	startBinary(t, f.serverArgs(bothPort)...)
	onlyAddr, _ := startTLSOnly(t, f)
	_, onlyPort, _ := net.SplitHostPort(onlyAddr)
	redisPort := freePort(t)
	startRedis(t, f.serverArgs(redisPort)...)
	for _, srv := range []struct {
		name, addr, port string
	}{
		{"lockredis-both-ports", "127.0.0.1:" + strconv.Itoa(bothPort), strconv.Itoa(bothPort)},
		{"lockredis-tls-only", onlyAddr, onlyPort},
		{"redis-server", "127.0.0.1:" + strconv.Itoa(redisPort), strconv.Itoa(redisPort)},
	} {
		for _, proto := range []int{2, 3} {
			t.Run(srv.name+"/RESP"+strconv.Itoa(proto), func(t *testing.T) {
				lockOverTLS(t, goRedisTLS(t, srv.addr, f, proto), srv.port)
			})
		}
	}
}

// TestTLSAuthClients: tls-auth-clients yes refuses a client without a
// certificate and one whose certificate another CA signed; optional
// accepts one without and checks one that is given; no accepts any.
// redis-server 7.0 with the same files decides the same.
func TestTLSAuthClients(t *testing.T) {
	f := genTLSFiles(t)
	type outcome struct{ none, good, stranger bool } // accepted?
	for _, tc := range []struct {
		mode string
		want outcome
	}{
		{"yes", outcome{none: false, good: true, stranger: false}},
		{"optional", outcome{none: true, good: true, stranger: false}},
		{"no", outcome{none: true, good: true, stranger: true}},
		{"OPTIONAL", outcome{none: true, good: true, stranger: false}}, // any case, as Redis's enums
	} {
		t.Run(tc.mode, func(t *testing.T) {
			lockPort, redisPort := freePort(t), freePort(t)
			startBinary(t, f.serverArgs(lockPort, "--tls-auth-clients", tc.mode)...)
			startRedis(t, f.serverArgs(redisPort, "--tls-auth-clients", tc.mode)...)
			for _, srv := range []struct {
				name string
				port int
			}{{"lockredis", lockPort}, {"redis-server", redisPort}} {
				addr := "127.0.0.1:" + strconv.Itoa(srv.port)
				for _, cl := range []struct {
					name string
					cert *tls.Certificate
					want bool
				}{{"no-cert", nil, tc.want.none}, {"ca-signed", &f.client, tc.want.good}, {"other-ca", &f.otherClient, tc.want.stranger}} {
					reply, err := tlsPing(addr, f.clientTLS(cl.cert))
					if got := err == nil && reply == "+PONG\r\n"; got != cl.want {
						t.Errorf("%s, client %s: accepted=%v (reply %q, err %v), want %v", srv.name, cl.name, got, reply, err, cl.want)
					}
				}
			}
		})
	}
}

// TestTLSPlaintextClientOnTLSPort: a plaintext RESP client on the TLS port
// is disconnected without a reply, and neither it nor a silent client that
// never starts a handshake keeps the server from serving TLS clients, on
// the TLS port or the plain one.
func TestTLSPlaintextClientOnTLSPort(t *testing.T) {
	f := genTLSFiles(t)
	tlsPort := freePort(t)
	plainAddr := startBinary(t, f.serverArgs(tlsPort)...)
	tlsAddr := "127.0.0.1:" + strconv.Itoa(tlsPort)

	silent, err := net.Dial("tcp", tlsAddr) // connects, never speaks
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	for _, payload := range []string{"*1\r\n$4\r\nPING\r\n", "PING\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"} {
		c, err := net.Dial("tcp", tlsAddr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(replyTimeout))
		c.Write([]byte(payload))
		b := make([]byte, 512)
		n, err := c.Read(b)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("plaintext %q on the TLS port: no answer and no close within %s", payload, replyTimeout)
		}
		if strings.Contains(string(b[:n]), "PONG") || strings.Contains(string(b[:n]), "+OK") {
			t.Fatalf("plaintext %q on the TLS port was served: %q", payload, b[:n])
		}
		c.Close()
	}
	if reply, err := tlsPing(tlsAddr, f.clientTLS(&f.client)); err != nil || reply != "+PONG\r\n" {
		t.Fatalf("TLS PING after plaintext clients = %q, %v", reply, err)
	}
	if got := dialRaw(t, plainAddr).do(t, "EXISTS", "k"); got != ":0\r\n" {
		t.Fatalf("plaintext SET on the TLS port reached the keyspace: EXISTS k = %q", got)
	}
}

// TestTLSBothPorts: one binary serves its plain and TLS ports from one
// keyspace; CONFIG GET reports both ports and the tls-* settings as given.
func TestTLSBothPorts(t *testing.T) {
	f := genTLSFiles(t)
	tlsPort := freePort(t)
	plainAddr := startBinary(t, f.serverArgs(tlsPort, "--tls-auth-clients", "optional", "--tls-protocols", "TLSv1.2 TLSv1.3")...)
	ctx := context.Background()
	plain := redis.NewClient(&redis.Options{Addr: plainAddr})
	defer plain.Close()
	secure := goRedisTLS(t, "127.0.0.1:"+strconv.Itoa(tlsPort), f, 3)
	if err := plain.Set(ctx, "shared", "from-plain", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := secure.Get(ctx, "shared").Result(); err != nil || v != "from-plain" {
		t.Fatalf("GET over TLS = %q, %v; want from-plain", v, err)
	}
	_, plainPort, _ := net.SplitHostPort(plainAddr)
	for _, tc := range []struct{ param, want string }{
		{"port", plainPort},
		{"tls-port", strconv.Itoa(tlsPort)},
		{"tls-cert-file", f.serverCert},
		{"tls-key-file", f.serverKey},
		{"tls-ca-cert-file", f.ca},
		{"tls-ca-cert-dir", ""},
		{"tls-auth-clients", "optional"},
		{"tls-protocols", "TLSv1.2 TLSv1.3"},
		{"tls-session-caching", "yes"},
		{"tls-replication", "no"},
	} {
		for name, c := range map[string]*redis.Client{"plain": plain, "tls": secure} {
			got, err := c.ConfigGet(ctx, tc.param).Result()
			if err != nil || got[tc.param] != tc.want {
				t.Errorf("%s: CONFIG GET %s = %v, %v; want %q", name, tc.param, got, err, tc.want)
			}
		}
	}
}

// TestTLSOnlyPort: --port 0 with a TLS port listens on the TLS port alone,
// as redis-server; CONFIG GET port answers 0 and the log names only the
// TLS address.
func TestTLSOnlyPort(t *testing.T) {
	f := genTLSFiles(t)
	addr, p := startTLSOnly(t, f)
	c := goRedisTLS(t, addr, f, 2)
	got, err := c.ConfigGet(context.Background(), "port").Result()
	if err != nil || got["port"] != "0" {
		t.Fatalf("CONFIG GET port = %v, %v; want 0", got, err)
	}
	// The process writes its log concurrently: read it once it has stopped.
	if err := stopBinary(p); err != nil {
		t.Fatal(err)
	}
	out := p.out.String()
	if !strings.Contains(out, "Ready to accept connections tls on "+addr) || strings.Contains(out, "connections tcp") {
		t.Fatalf("log does not say TLS only:\n%s", out)
	}
}

// TestTLSConfigFileAndRefusals: the tls-* directives work from a
// redis.conf-style file; settings lockredis cannot honour, or bad values,
// stop the start with a message naming them.
func TestTLSConfigFileAndRefusals(t *testing.T) {
	f := genTLSFiles(t)
	port := freePort(t)
	conf := filepath.Join(t.TempDir(), "redis.conf")
	body := "port 0\nbind 127.0.0.1\ntls-port " + strconv.Itoa(port) + "\ntls-cert-file " + f.serverCert +
		"\ntls-key-file " + f.serverKey + "\ntls-ca-cert-dir " + f.dir + "\ntls-auth-clients yes\n" +
		"tls-replication no\ntls-cluster no\ntls-ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384\n" +
		"dir " + t.TempDir() + "\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := lockredisBinary(t)
	cmd := exec.Command(bin, conf)
	dieWithTest(cmd)
	p := &process{cmd: cmd, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.out, &p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := waitTLSPing(addr, f.clientTLS(&f.client), p.exited); err != nil {
		stopBinary(p)
		t.Fatalf("from a config file: %v\n%s", err, p.out.String())
	}
	defer func() {
		if err := stopBinary(p); err != nil {
			t.Error(err)
		}
	}()
	// The CA directory was read (the client certificate was accepted) and
	// it still requires one.
	if _, err := tlsPing(addr, f.clientTLS(nil)); err == nil {
		t.Error("a client without a certificate was accepted with tls-auth-clients yes")
	}
	// TLS 1.2 with a suite outside tls-ciphers is refused.
	cfg := f.clientTLS(&f.client)
	cfg.MaxVersion = tls.VersionTLS12
	cfg.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}
	if _, err := tlsPing(addr, cfg); err == nil {
		t.Error("a TLS 1.2 cipher suite outside tls-ciphers was accepted")
	}
	cfg.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}
	if reply, err := tlsPing(addr, cfg); err != nil || reply != "+PONG\r\n" {
		t.Errorf("a TLS 1.2 cipher suite in tls-ciphers: %q, %v", reply, err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{f.serverArgs(port, "--tls-ciphersuites", "TLS_AES_128_GCM_SHA256"), "tls-ciphersuites is not supported"},
		{f.serverArgs(port, "--tls-key-file-pass", "secret"), "tls-key-file-pass is not supported"},
		{f.serverArgs(port, "--tls-replication", "yes"), "tls-replication is not supported"},
		{f.serverArgs(port, "--tls-dh-params-file", "dh.pem"), "tls-dh-params-file is not supported"},
		{f.serverArgs(port, "--tls-auth-clients", "maybe"), "must be one of the following: no, yes, optional"},
		{f.serverArgs(port, "--tls-protocols", "TLSv1 TLSv1.3"), "consecutive"},
		{f.serverArgs(port, "--tls-protocols", "SSLv3"), "Invalid tls-protocols"},
		{f.serverArgs(port, "--tls-ciphers", "HIGH:!aNULL"), "Failed to configure ciphers"},
		{[]string{"--tls-port", strconv.Itoa(port), "--tls-key-file", f.serverKey}, "No tls-cert-file configured!"},
		{[]string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", f.serverCert, "--tls-key-file", f.serverKey},
			"Either tls-ca-cert-file or tls-ca-cert-dir must be specified"},
		{[]string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", f.serverKey, "--tls-key-file", f.serverKey, "--tls-auth-clients", "no"},
			"Failed to load certificate"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			args := append([]string{"--port", "0", "--dir", t.TempDir()}, tc.args...)
			out, err := exec.Command(bin, args...).CombinedOutput()
			if err == nil {
				t.Fatalf("started with %v:\n%s", tc.args, out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("output does not say %q:\n%s", tc.want, out)
			}
		})
	}
}

// TestTLSEmbedded: an embedded server with Options.TLSConfig serves TLS
// next to its plain port (TLSAddr), or alone with TLSOnly; go-redis locks
// work over it.
func TestTLSEmbedded(t *testing.T) {
	f := genTLSFiles(t)
	for _, tc := range []struct {
		name string
		opts lockredis.Options
	}{
		{"both", lockredis.Options{TLSConfig: f.serverTLS}},
		{"tls-only", lockredis.Options{TLSConfig: f.serverTLS, TLSOnly: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startEmbedded(t, tc.opts)
			if srv.TLSAddr() == "" {
				t.Fatal("no TLS address")
			}
			if tc.opts.TLSOnly != (len(srv.Addrs()) == 0) {
				t.Fatalf("plain addresses %v with TLSOnly=%v", srv.Addrs(), tc.opts.TLSOnly)
			}
			_, port, _ := net.SplitHostPort(srv.TLSAddr())
			for _, proto := range []int{2, 3} {
				lockOverTLS(t, goRedisTLS(t, srv.TLSAddr(), f, proto), port)
			}
		})
	}
}
