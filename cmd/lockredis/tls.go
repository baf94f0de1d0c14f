package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/engine"
	"github.com/spf13/pflag"
)

// tlsSettings are the tls-* flags and directives (see lockredis.TLSFiles
// for what each one does).
type tlsSettings struct {
	port  int
	files lockredis.TLSFiles
	// unsupported holds the tls-* settings of redis-server that have no
	// effect in lockredis, as given; validateTLS refuses any but their
	// harmless values.
	unsupported map[string]string
}

func defaultTLS() tlsSettings {
	return tlsSettings{files: lockredis.TLSFiles{AuthClients: "yes", SessionCaching: "yes"}, unsupported: map[string]string{}}
}

// tlsStringFlags are the supported tls-* settings held as strings.
func (t *tlsSettings) stringFields() map[string]*string {
	return map[string]*string{
		"tls-cert-file":       &t.files.CertFile,
		"tls-key-file":        &t.files.KeyFile,
		"tls-ca-cert-file":    &t.files.CACertFile,
		"tls-ca-cert-dir":     &t.files.CACertDir,
		"tls-auth-clients":    &t.files.AuthClients,
		"tls-protocols":       &t.files.Protocols,
		"tls-ciphers":         &t.files.Ciphers,
		"tls-session-caching": &t.files.SessionCaching,
	}
}

var tlsUsage = map[string]string{
	"tls-cert-file":       "server certificate (PEM)",
	"tls-key-file":        "server private key (PEM, unencrypted)",
	"tls-ca-cert-file":    "CA bundle (PEM) that signs client certificates",
	"tls-ca-cert-dir":     "directory of CA certificates (PEM) that sign client certificates",
	"tls-auth-clients":    "yes|optional|no: require, accept or ignore client certificates",
	"tls-protocols":       `TLS versions, consecutive, e.g. "TLSv1.2 TLSv1.3" (the default)`,
	"tls-ciphers":         "TLS 1.2 cipher suites, ':' separated (OpenSSL or IANA names); empty: Go's defaults",
	"tls-session-caching": "yes|no: let clients resume TLS sessions",
}

// unsupportedTLS are redis-server's other tls-* settings: why each has no
// effect here, and the value that asks for nothing and is accepted.
var unsupportedTLS = map[string]struct{ why, harmless string }{
	"tls-ciphersuites":          {"crypto/tls does not let TLS 1.3 cipher suites be chosen", ""},
	"tls-prefer-server-ciphers": {"crypto/tls always picks the cipher suite by its own order", ""},
	"tls-key-file-pass":         {"encrypted private keys are not supported: decrypt the key (openssl pkey -in key.pem -out plain.pem)", ""},
	"tls-dh-params-file":        {"crypto/tls has no DHE cipher suites (it uses ECDHE)", ""},
	"tls-session-cache-size":    {"crypto/tls resumes sessions with tickets, not a server-side cache; tls-session-caching turns resumption on or off", ""},
	"tls-session-cache-timeout": {"crypto/tls resumes sessions with tickets, not a server-side cache; tls-session-caching turns resumption on or off", ""},
	"tls-client-cert-file":      {"lockredis has no replication or cluster links for it to secure", ""},
	"tls-client-key-file":       {"lockredis has no replication or cluster links for it to secure", ""},
	"tls-client-key-file-pass":  {"lockredis has no replication or cluster links for it to secure", ""},
	"tls-replication":           {"lockredis has no replication", "no"},
	"tls-cluster":               {"lockredis has no cluster", "no"},
}

// registerTLSFlags adds the tls-* flags to fs. The unsupported ones are
// hidden flags, so that giving one gets validateTLS's explanation instead
// of "unknown flag".
func registerTLSFlags(fs *pflag.FlagSet, t *tlsSettings) {
	fs.IntVar(&t.port, "tls-port", t.port, "TLS port to listen on (0: none); with --port 0 the only port")
	fields := t.stringFields()
	for _, name := range []string{"tls-cert-file", "tls-key-file", "tls-ca-cert-file", "tls-ca-cert-dir",
		"tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-session-caching"} {
		fs.StringVar(fields[name], name, *fields[name], tlsUsage[name])
	}
	for name := range unsupportedTLS {
		fs.Var(unsupportedFlag{t, name}, name, "not supported")
		fs.MarkHidden(name)
	}
}

type unsupportedFlag struct {
	t    *tlsSettings
	name string
}

func (f unsupportedFlag) Set(s string) error { f.t.unsupported[f.name] = s; return nil }
func (f unsupportedFlag) String() string {
	if f.t == nil {
		return ""
	}
	return f.t.unsupported[f.name]
}
func (f unsupportedFlag) Type() string { return "string" }

// applyTLSDirective reads a tls-* config file line; handled is false for
// other directives.
func applyTLSDirective(t *tlsSettings, name string, args []string) (handled bool, err error) {
	if !strings.HasPrefix(name, "tls-") {
		return false, nil
	}
	if len(args) != 1 {
		return true, fmt.Errorf("wrong number of arguments for %q", name)
	}
	if name == "tls-port" {
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return true, fmt.Errorf("argument of %q must be an integer, got %q", name, args[0])
		}
		t.port = n
		return true, nil
	}
	if p, ok := t.stringFields()[name]; ok {
		*p = args[0]
		return true, nil
	}
	if _, ok := unsupportedTLS[name]; ok {
		t.unsupported[name] = args[0]
		return true, nil
	}
	return false, nil
}

// overlayTLS copies the tls-* flags the command line set onto out.
func overlayTLS(out *tlsSettings, cli tlsSettings, fs *pflag.FlagSet) {
	if fs.Changed("tls-port") {
		out.port = cli.port
	}
	outFields, cliFields := out.stringFields(), cli.stringFields()
	for name, p := range cliFields {
		if fs.Changed(name) {
			*outFields[name] = *p
		}
	}
	for name, v := range cli.unsupported {
		if fs.Changed(name) {
			out.unsupported[name] = v
		}
	}
}

// validateTLS refuses redis-server's tls-* settings that would have no
// effect, checks the others' words, and loads the files when there is a
// TLS port: a TLS setting that is accepted takes effect.
func validateTLS(t *tlsSettings) (*tls.Config, error) {
	for name, v := range t.unsupported {
		u := unsupportedTLS[name]
		if strings.EqualFold(v, u.harmless) {
			continue
		}
		return nil, fmt.Errorf("%s is not supported: %s", name, u.why)
	}
	if t.port < 0 || t.port > 65535 {
		return nil, fmt.Errorf("--tls-port must be between 0 and 65535, got %d", t.port)
	}
	// The words are checked (and normalized for CONFIG GET) even without
	// a TLS port, as redis-server checks them when it reads them.
	auth, err := lockredis.ParseTLSAuthClients(t.files.AuthClients)
	if err != nil {
		return nil, err
	}
	t.files.AuthClients = map[tls.ClientAuthType]string{tls.RequireAndVerifyClientCert: "yes",
		tls.VerifyClientCertIfGiven: "optional", tls.NoClientCert: "no"}[auth]
	caching, err := engine.ParseYesNo("tls-session-caching", t.files.SessionCaching)
	if err != nil {
		return nil, err
	}
	t.files.SessionCaching = "no"
	if caching {
		t.files.SessionCaching = "yes"
	}
	if t.port == 0 {
		return nil, nil // redis-server loads nothing without a TLS port
	}
	cfg, err := t.files.Config()
	if err != nil {
		return nil, fmt.Errorf("Failed to configure TLS: %v", err)
	}
	return cfg, nil
}

// tlsOptions sets the TLS part of the server's options: the TLS
// listeners on every bind address, TLSOnly for --port 0, and what CONFIG
// GET reports.
func tlsOptions(cfg config, tlsCfg *tls.Config, opts *lockredis.Options) {
	if tlsCfg != nil {
		opts.TLSConfig = tlsCfg
		opts.TLSOnly = cfg.port == 0
		for _, b := range cfg.bind {
			host := strings.TrimPrefix(b, "-")
			opts.TLSAddrs = append(opts.TLSAddrs, b[:len(b)-len(host)]+net.JoinHostPort(host, strconv.Itoa(cfg.tls.port)))
		}
	}
	opts.Params["tls-port"] = strconv.Itoa(cfg.tls.port)
	for name, p := range cfg.tls.stringFields() {
		opts.Params[name] = *p
	}
	opts.Params["tls-replication"] = "no"
	opts.Params["tls-cluster"] = "no"
}
