package lockredis

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testPKI writes a CA, a server certificate for 127.0.0.1 and a client
// certificate, all signed by the CA, to a temporary directory.
type testPKI struct {
	dir, ca, cert, key string
	pool               *x509.CertPool
	client             tls.Certificate
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir(), pool: x509.NewCertPool()}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	p.pool.AddCert(caCert)
	leaf := func(serial int64, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "leaf"},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, k
	}
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(p.dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p.ca = write("ca.pem", "CERTIFICATE", caDER)
	sDER, sKey := leaf(2, x509.ExtKeyUsageServerAuth)
	p.cert = write("server.pem", "CERTIFICATE", sDER)
	skDER, _ := x509.MarshalPKCS8PrivateKey(sKey)
	p.key = write("server-key.pem", "PRIVATE KEY", skDER)
	cDER, cKey := leaf(3, x509.ExtKeyUsageClientAuth)
	p.client = tls.Certificate{Certificate: [][]byte{cDER}, PrivateKey: cKey}
	return p
}

func (p *testPKI) dial(t *testing.T, addr string) (*tls.Conn, *bufio.Reader) {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{p.client}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// TestTLSFilesConfig: each tls-* setting is read into the TLS
// configuration or refused with redis-server's wording.
func TestTLSFilesConfig(t *testing.T) {
	p := newTestPKI(t)
	base := TLSFiles{CertFile: p.cert, KeyFile: p.key, CACertFile: p.ca}
	with := func(change func(*TLSFiles)) TLSFiles { f := base; change(&f); return f }
	for _, tc := range []struct {
		name    string
		files   TLSFiles
		wantErr string
		check   func(*tls.Config) bool
	}{
		{"defaults", base, "", func(c *tls.Config) bool {
			return c.ClientAuth == tls.RequireAnyClientCert && c.VerifyPeerCertificate != nil &&
				c.MinVersion == tls.VersionTLS12 && c.MaxVersion == tls.VersionTLS13 && !c.SessionTicketsDisabled
		}},
		{"optional", with(func(f *TLSFiles) { f.AuthClients = "Optional" }), "", func(c *tls.Config) bool { return c.ClientAuth == tls.RequestClientCert }},
		{"no", with(func(f *TLSFiles) { f.AuthClients = "no"; f.CACertFile = "" }), "", func(c *tls.Config) bool {
			return c.ClientAuth == tls.NoClientCert && c.VerifyPeerCertificate == nil
		}},
		{"bad auth", with(func(f *TLSFiles) { f.AuthClients = "sometimes" }), "no, yes, optional", nil},
		{"no CA", with(func(f *TLSFiles) { f.CACertFile = "" }), "Either tls-ca-cert-file or tls-ca-cert-dir", nil},
		{"CA dir", with(func(f *TLSFiles) { f.CACertFile = ""; f.CACertDir = p.dir }), "", func(c *tls.Config) bool { return c.VerifyPeerCertificate != nil }},
		{"empty CA dir", with(func(f *TLSFiles) { f.CACertFile = ""; f.CACertDir = t.TempDir() }), "no PEM certificate", nil},
		{"CA file not PEM", with(func(f *TLSFiles) { f.CACertFile = p.key }), "no PEM certificate", nil},
		{"no cert", with(func(f *TLSFiles) { f.CertFile = "" }), "No tls-cert-file configured!", nil},
		{"no key", with(func(f *TLSFiles) { f.KeyFile = "" }), "No tls-key-file configured!", nil},
		{"bad cert", with(func(f *TLSFiles) { f.CertFile = p.key }), "Failed to load certificate", nil},
		{"TLSv1.3 only", with(func(f *TLSFiles) { f.Protocols = "tlsv1.3" }), "", func(c *tls.Config) bool {
			return c.MinVersion == tls.VersionTLS13 && c.MaxVersion == tls.VersionTLS13
		}},
		{"TLSv1 to 1.2", with(func(f *TLSFiles) { f.Protocols = "TLSv1.2 TLSv1 TLSv1.1" }), "", func(c *tls.Config) bool {
			return c.MinVersion == tls.VersionTLS10 && c.MaxVersion == tls.VersionTLS12
		}},
		{"gap", with(func(f *TLSFiles) { f.Protocols = "TLSv1.1 TLSv1.3" }), "consecutive", nil},
		{"unknown protocol", with(func(f *TLSFiles) { f.Protocols = "SSLv3" }), "Invalid tls-protocols", nil},
		{"ciphers", with(func(f *TLSFiles) {
			f.Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
		}), "", func(c *tls.Config) bool {
			return len(c.CipherSuites) == 2 && c.CipherSuites[0] == tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 &&
				c.CipherSuites[1] == tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
		}},
		{"cipher keyword", with(func(f *TLSFiles) { f.Ciphers = "HIGH" }), "Failed to configure ciphers", nil},
		{"no session caching", with(func(f *TLSFiles) { f.SessionCaching = "NO" }), "", func(c *tls.Config) bool { return c.SessionTicketsDisabled }},
		{"bad session caching", with(func(f *TLSFiles) { f.SessionCaching = "maybe" }), "tls-session-caching", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.files.Config()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(cfg) {
				t.Fatalf("unexpected config: %+v", cfg)
			}
		})
	}
}

// TestTLSBlockingAndSubscribe: over TLS, a blocked BLPOP is served by a
// push from the plain port and the connection goes on (the guard's
// read-ahead interrupted by a deadline leaves the TLS stream intact); a
// client that leaves while blocked is noticed; SUBSCRIBE gets messages;
// CONFIG GET reports the TLS port; Close ends everything.
func TestTLSBlockingAndSubscribe(t *testing.T) {
	p := newTestPKI(t)
	cfg, err := TLSFiles{CertFile: p.cert, KeyFile: p.key, CACertFile: p.ca}.Config()
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(Options{TLSConfig: cfg})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.TLSAddr())
	if got := srv.Do("CONFIG", "GET", "tls-port").String(); !strings.Contains(got, port) {
		t.Fatalf("CONFIG GET tls-port = %s, want %s", got, port)
	}
	plain, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plainRd := bufio.NewReader(plain)

	c, rd := p.dial(t, srv.TLSAddr())
	if _, err := c.Write([]byte("BLPOP q 0\r\n")); err != nil {
		t.Fatal(err)
	}
	// Wait until the BLPOP is blocked, then push from the plain port.
	for deadline := time.Now().Add(5 * time.Second); ; {
		if strings.Contains(srv.Do("CLIENT", "LIST").String(), "cmd=blpop") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("BLPOP never blocked")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := rawDo(t, plain, plainRd, "LPUSH q v"); got != ":1" {
		t.Fatalf("LPUSH = %q", got)
	}
	for _, want := range []string{"*2", "$1", "q", "$1", "v"} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := rd.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != want {
			t.Fatalf("BLPOP reply line %q, %v; want %q", line, err, want)
		}
	}
	if got := rawDo(t, c, rd, "PING"); got != "+PONG" {
		t.Fatalf("PING after BLPOP over TLS = %q", got)
	}

	// A blocked client that leaves is noticed.
	gone, _ := p.dial(t, srv.TLSAddr())
	gone.Write([]byte("BLPOP nothing 0\r\n"))
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(srv.Do("CLIENT", "LIST").String(), "cmd=blpop"); {
		if time.Now().After(deadline) {
			t.Fatal("BLPOP never blocked")
		}
		time.Sleep(5 * time.Millisecond)
	}
	gone.Close()
	for deadline := time.Now().Add(5 * time.Second); strings.Contains(srv.Do("CLIENT", "LIST").String(), "cmd=blpop"); {
		if time.Now().After(deadline) {
			t.Fatal("the blocked TLS client that left was not noticed")
		}
		time.Sleep(5 * time.Millisecond)
	}

	// SUBSCRIBE over TLS, PUBLISH from the plain port.
	if got := rawDo(t, c, rd, "SUBSCRIBE ch"); got != "*3" {
		t.Fatalf("SUBSCRIBE = %q", got)
	}
	for i := 0; i < 5; i++ {
		rd.ReadString('\n')
	}
	if got := rawDo(t, plain, plainRd, "PUBLISH ch hello"); got != ":1" {
		t.Fatalf("PUBLISH = %q", got)
	}
	var msg []string
	for i := 0; i < 7; i++ {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		msg = append(msg, strings.TrimSpace(line))
	}
	if strings.Join(msg, " ") != "*3 $7 message $2 ch $5 hello" {
		t.Fatalf("message = %q", msg)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestTLSOnlyNeedsConfig: TLSOnly without a TLSConfig would listen
// nowhere: Start refuses it.
func TestTLSOnlyNeedsConfig(t *testing.T) {
	srv := NewServer(Options{TLSOnly: true})
	if err := srv.Start(); err == nil {
		srv.Close()
		t.Fatal("started with TLSOnly and no TLSConfig")
	}
}
