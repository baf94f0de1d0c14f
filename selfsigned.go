package lockredis

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"time"
)

// SelfSignedTLS makes a fresh self-signed certificate for 127.0.0.1, ::1
// and localhost, valid for a day, and returns a server configuration
// serving it (no client certificate asked) and a client configuration
// trusting it, for Options.TLSConfig and the client of a test.
func SelfSignedTLS() (server, client *tls.Config, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "lockredis test server"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // it signs itself: the client's root
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	server = &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}},
		MinVersion:   tls.VersionTLS12,
	}
	// ServerName is set so that clients that build a tls.Client
	// themselves verify too; the certificate also names ::1 and
	// localhost, for those that set their own.
	client = &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	return server, client, nil
}

// RunTLS starts a server that serves TLS only (redis-server's "port 0"
// with a tls-port), on a free loopback port. With a nil cfg it makes a
// self-signed certificate (SelfSignedTLS); ClientTLSConfig then gives the
// client's configuration that trusts it:
//
//	srv, err := lockredis.RunTLS(nil)
//	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), TLSConfig: srv.ClientTLSConfig()})
//
// For a plain port as well, set Options.TLSConfig instead.
func RunTLS(cfg *tls.Config) (*Server, error) {
	s := NewServer(Options{})
	if err := s.StartTLS("", cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// RunTLST is RunTLS with a self-signed certificate for a test: it fails
// the test if the server cannot start and closes it when the test ends.
func RunTLST(t TB) *Server {
	t.Helper()
	s, err := RunTLS(nil)
	if err != nil {
		t.Fatalf("lockredis: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// StartTLS starts a server made by NewServer serving TLS only on addr
// ("" keeps Options.Addr) with cfg, or with a self-signed certificate
// when cfg is nil (see ClientTLSConfig).
func (s *Server) StartTLS(addr string, cfg *tls.Config) error {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if started {
		return errors.New("lockredis: server already started")
	}
	if cfg == nil {
		var err error
		if cfg, s.clientTLS, err = SelfSignedTLS(); err != nil {
			return err
		}
	}
	if addr != "" {
		s.opts.Addr = addr
	}
	if s.opts.Addr == "" {
		s.opts.Addr = "127.0.0.1:0"
	}
	s.opts.Addrs = nil
	s.opts.TLSAddrs = []string{s.opts.Addr}
	s.opts.TLSConfig = cfg
	s.opts.TLSOnly = true
	return s.Start()
}

// ClientTLSConfig is a client configuration that trusts the self-signed
// certificate of RunTLS(nil) or StartTLS(addr, nil); nil for a server
// started with a certificate of its own. Each call returns a new copy.
func (s *Server) ClientTLSConfig() *tls.Config {
	if s.clientTLS == nil {
		return nil
	}
	return s.clientTLS.Clone()
}
