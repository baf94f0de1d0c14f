package lockredis

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockredis/lockredis/config"
)

// TLSFiles are redis-server 7.0's tls-* settings for the client port, as
// files and words; Config turns them into the *tls.Config that
// Options.TLSConfig takes. Every field takes effect; redis-server's other
// tls-* settings have no crypto/tls equivalent (see docs/operations.md, TLS
// section) and are refused by cmd/lockredis.
type TLSFiles struct {
	// CertFile and KeyFile are the server's PEM certificate (chain) and
	// unencrypted private key (tls-cert-file, tls-key-file). Required.
	CertFile, KeyFile string
	// CACertFile (a PEM bundle) and CACertDir (every PEM certificate in
	// the directory's files) are the CAs that sign client certificates
	// (tls-ca-cert-file, tls-ca-cert-dir). One is required unless
	// AuthClients is "no".
	CACertFile, CACertDir string
	// AuthClients is tls-auth-clients: "yes" (the default, also when
	// empty) requires a client certificate signed by a CA above,
	// "optional" checks one if the client sends it, "no" asks for none.
	AuthClients string
	// Protocols is tls-protocols: versions separated by spaces among
	// TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (any case), which must be
	// consecutive; empty means "TLSv1.2 TLSv1.3", as redis-server.
	Protocols string
	// Ciphers is tls-ciphers, for TLS 1.2 and below: suite names separated
	// by ':' (or ',' or spaces), OpenSSL's (ECDHE-RSA-AES128-GCM-SHA256)
	// or IANA's (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256), among the suites
	// crypto/tls implements; empty means crypto/tls's defaults. OpenSSL's
	// keywords (HIGH, DEFAULT, !aNULL...) are refused.
	Ciphers string
	// SessionCaching is tls-session-caching: "yes" (default, also when
	// empty) lets clients resume sessions, "no" makes every connection
	// do a full handshake.
	SessionCaching string
}

// Config loads the files and returns the server's TLS configuration. Its
// errors name the setting and the file, as redis-server's log does.
func (f TLSFiles) Config() (*tls.Config, error) {
	if f.CertFile == "" {
		return nil, errors.New("No tls-cert-file configured!")
	}
	if f.KeyFile == "" {
		return nil, errors.New("No tls-key-file configured!")
	}
	auth, err := ParseTLSAuthClients(f.AuthClients)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{ClientAuth: auth}
	if auth != tls.NoClientCert && f.CACertFile == "" && f.CACertDir == "" {
		return nil, errors.New("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients is enabled!")
	}
	cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("Failed to load certificate: %s, private key %s: %v", f.CertFile, f.KeyFile, err)
	}
	cfg.Certificates = []tls.Certificate{cert}
	if f.CACertFile != "" || f.CACertDir != "" {
		pool, err := loadCAs(f.CACertFile, f.CACertDir)
		if err != nil {
			return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: %v", err)
		}
		if auth != tls.NoClientCert {
			// The chain is checked here rather than through ClientCAs,
			// which would list the CAs' names in the certificate request:
			// redis-server (OpenSSL) lists none, so a client sends the
			// certificate it has, and one from another CA is refused, in
			// "optional" mode too, instead of being withheld by the client.
			cfg.ClientAuth = map[tls.ClientAuthType]tls.ClientAuthType{
				tls.RequireAndVerifyClientCert: tls.RequireAnyClientCert,
				tls.VerifyClientCertIfGiven:    tls.RequestClientCert,
			}[auth]
			cfg.VerifyPeerCertificate = verifyClientCert(pool)
		}
	}
	if cfg.MinVersion, cfg.MaxVersion, err = parseTLSProtocols(f.Protocols); err != nil {
		return nil, err
	}
	if cfg.CipherSuites, err = parseTLSCiphers(f.Ciphers); err != nil {
		return nil, err
	}
	if f.SessionCaching != "" {
		p, _ := config.Lookup("tls-session-caching")
		caching, why := p.Normalize(f.SessionCaching)
		if why != "" {
			return nil, &config.ValueError{Name: p.Name, Value: f.SessionCaching, Why: why}
		}
		cfg.SessionTicketsDisabled = caching == "no"
	}
	return cfg, nil
}

// verifyClientCert checks a client's certificate chain against the CAs,
// for TLS client authentication, as OpenSSL does for a server. No
// certificate passes: ClientAuth decides whether one is required.
func verifyClientCert(roots *x509.CertPool) func(raw [][]byte, _ [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return nil
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, b := range raw {
			c, err := x509.ParseCertificate(b)
			if err != nil {
				return err
			}
			certs[i] = c
		}
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		return err
	}
}

// ParseTLSAuthClients reads tls-auth-clients: yes (also ""), optional or
// no, in any case.
func ParseTLSAuthClients(s string) (tls.ClientAuthType, error) {
	switch strings.ToLower(s) {
	case "", "yes":
		return tls.RequireAndVerifyClientCert, nil
	case "optional":
		return tls.VerifyClientCertIfGiven, nil
	case "no":
		return tls.NoClientCert, nil
	}
	return 0, fmt.Errorf("tls-auth-clients must be one of the following: no, yes, optional; got %q", s)
}

// tlsAuthClientsWord is CONFIG GET's tls-auth-clients for a ClientAuth.
func tlsAuthClientsWord(a tls.ClientAuthType) string {
	switch a {
	case tls.RequireAndVerifyClientCert, tls.RequireAnyClientCert:
		return "yes"
	case tls.VerifyClientCertIfGiven, tls.RequestClientCert:
		return "optional"
	}
	return "no"
}

// loadCAs reads the CA bundle file and every PEM certificate found in the
// files of dir (OpenSSL reads only files named by subject hash, as made by
// c_rehash; reading them all finds those too). No certificate at all is an
// error: no client certificate could ever be accepted.
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	found := false
	if file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate in it", file)
		}
		found = true
	}
	if dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
				continue // c_rehash makes symlinks: Stat follows them
			}
			pem, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			if pool.AppendCertsFromPEM(pem) {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: no PEM certificate in its files", dir)
		}
	}
	return pool, nil
}

var tlsVersionNames = []struct {
	name string
	v    uint16
}{{"tlsv1", tls.VersionTLS10}, {"tlsv1.1", tls.VersionTLS11}, {"tlsv1.2", tls.VersionTLS12}, {"tlsv1.3", tls.VersionTLS13}}

// parseTLSProtocols reads tls-protocols into crypto/tls's version range.
// crypto/tls takes a range, so the versions must be consecutive
// ("TLSv1 TLSv1.2" is refused rather than widened).
func parseTLSProtocols(s string) (min, max uint16, err error) {
	words := strings.Fields(s)
	if len(words) == 0 {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	var have [4]bool
	for _, w := range words {
		i := 0
		for i < len(tlsVersionNames) && !strings.EqualFold(w, tlsVersionNames[i].name) {
			i++
		}
		if i == len(tlsVersionNames) {
			return 0, 0, errors.New("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")
		}
		have[i] = true
	}
	lo, hi := -1, -1
	for i, h := range have {
		if !h {
			continue
		}
		if lo < 0 {
			lo = i
		} else if hi != i-1 {
			return 0, 0, fmt.Errorf("tls-protocols %q: the versions must be consecutive (crypto/tls takes a range)", s)
		}
		hi = i
	}
	return tlsVersionNames[lo].v, tlsVersionNames[hi].v, nil
}

// openSSLCipherNames maps OpenSSL's names of the TLS 1.2 suites crypto/tls
// implements to their IANA names.
var openSSLCipherNames = map[string]string{
	"ECDHE-ECDSA-AES128-GCM-SHA256": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-RSA-AES128-GCM-SHA256":   "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-ECDSA-AES256-GCM-SHA384": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-RSA-AES256-GCM-SHA384":   "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-ECDSA-CHACHA20-POLY1305": "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-RSA-CHACHA20-POLY1305":   "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-ECDSA-AES128-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
	"ECDHE-RSA-AES128-SHA":          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
	"ECDHE-ECDSA-AES256-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
	"ECDHE-RSA-AES256-SHA":          "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
	"AES128-GCM-SHA256":             "TLS_RSA_WITH_AES_128_GCM_SHA256",
	"AES256-GCM-SHA384":             "TLS_RSA_WITH_AES_256_GCM_SHA384",
	"AES128-SHA":                    "TLS_RSA_WITH_AES_128_CBC_SHA",
	"AES256-SHA":                    "TLS_RSA_WITH_AES_256_CBC_SHA",
}

// parseTLSCiphers reads tls-ciphers as a list of suite names. Only
// crypto/tls's secure suites (tls.CipherSuites) are accepted.
func parseTLSCiphers(s string) ([]uint16, error) {
	names := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ',' || r == ' ' })
	if len(names) == 0 {
		return nil, nil
	}
	byName := map[string]uint16{}
	for _, cs := range tls.CipherSuites() {
		byName[cs.Name] = cs.ID
	}
	var ids []uint16
	for _, n := range names {
		iana := strings.ToUpper(n)
		if o, ok := openSSLCipherNames[iana]; ok {
			iana = o
		}
		id, ok := byName[iana]
		if !ok {
			return nil, fmt.Errorf("Failed to configure ciphers: %s: %q is not a cipher suite lockredis implements (give suite names such as ECDHE-RSA-AES128-GCM-SHA256; OpenSSL keywords are not supported)", s, n)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// tlsConfig is Options.TLSConfig, or the one the tls-* parameters make
// when they give a TLS port (as redis-server loads the files only then).
func (s *Server) tlsConfig(given *config.Settings) (*tls.Config, error) {
	if s.opts.TLSConfig != nil || given.Int("tls-port") == 0 {
		return s.opts.TLSConfig, nil
	}
	cfg, err := TLSFiles{
		CertFile: given.Value("tls-cert-file"), KeyFile: given.Value("tls-key-file"),
		CACertFile: given.Value("tls-ca-cert-file"), CACertDir: given.Value("tls-ca-cert-dir"),
		AuthClients: given.Value("tls-auth-clients"), Protocols: given.Value("tls-protocols"),
		Ciphers: given.Value("tls-ciphers"), SessionCaching: given.Value("tls-session-caching"),
	}.Config()
	if err != nil {
		return nil, fmt.Errorf("Failed to configure TLS: %v", err)
	}
	return cfg, nil
}
