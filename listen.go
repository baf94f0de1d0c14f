package lockredis

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/lockredis/lockredis/config"
	"github.com/lockredis/lockredis/engine"
)

// listenAll opens a listener on each address, as redis-server's
// listenToPort does for "bind 127.0.0.1 -::1":
//
//   - an address written with a leading '-' is optional: if it is not
//     available on this machine (EADDRNOTAVAIL), it is skipped with a log
//     line;
//   - an address of a family or protocol the machine lacks (no IPv6) is
//     skipped with a log line, optional or not;
//   - any other failure (the port is taken) closes what was opened and
//     fails.
//
// Port 0 picks a free port on the first listener; the others then use that
// same port, so that all addresses are one server.
func listenAll(addrs []string, logf func(level, format string, args ...any)) ([]net.Listener, error) {
	var lns []net.Listener
	fail := func(err error) ([]net.Listener, error) {
		for _, ln := range lns {
			ln.Close()
		}
		return nil, err
	}
	freePort := ""
	for _, addr := range addrs {
		optional := strings.HasPrefix(addr, "-")
		addr = strings.TrimPrefix(addr, "-")
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return fail(err)
		}
		if port == "0" && freePort != "" {
			addr = net.JoinHostPort(host, freePort)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			logf("warning", "Warning: Could not create server TCP listening socket %s: %v", addr, err)
			if (optional && errors.Is(err, syscall.EADDRNOTAVAIL)) || familyMissing(err) {
				continue
			}
			return fail(err)
		}
		if port == "0" && freePort == "" {
			freePort = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}
		lns = append(lns, ln)
	}
	if len(lns) == 0 {
		return nil, fmt.Errorf("configured to not listen anywhere: none of %s is available", strings.Join(addrs, " "))
	}
	return lns, nil
}

// familyMissing reports a listen error that says the machine has no such
// address family or protocol (IPv6 disabled), which redis-server skips.
func familyMissing(err error) bool {
	return errors.Is(err, syscall.EAFNOSUPPORT) || errors.Is(err, syscall.EPROTONOSUPPORT) ||
		errors.Is(err, syscall.ESOCKTNOSUPPORT) || errors.Is(err, syscall.EPFNOSUPPORT) ||
		errors.Is(err, syscall.ENOPROTOOPT)
}

// listenAddrs are the addresses the server listens on: Options' Addr or
// Addrs, or the bind and port parameters (default 127.0.0.1 on a free
// port); with TLS, Options.TLSAddrs or the same hosts on tls-port (default
// a free port). Port 0 with a TLS port is TLSOnly, as redis-server's.
// After the first start, the addresses it bound.
func (s *Server) listenAddrs(given *config.Settings, tlsCfg *tls.Config) (addrs, tlsAddrs []string, tlsOnly bool, err error) {
	s.lnMu.Lock()
	addrs, tlsAddrs = s.bound, s.boundTLS
	s.lnMu.Unlock()
	tlsOnly = s.opts.TLSOnly
	if addrs != nil {
		return addrs, tlsAddrs, len(addrs) == 0, nil
	}
	byParams := given.Given("bind") || given.Given("port")
	switch {
	case byParams && (s.opts.Addr != "" || len(s.opts.Addrs) > 0):
		return nil, nil, false, errors.New("lockredis: Options.Addr (or Addrs) and the bind or port parameters are both set")
	case len(s.opts.Addrs) > 0:
		addrs = s.opts.Addrs
	case s.opts.Addr != "":
		addrs = []string{s.opts.Addr}
	default:
		hosts := []string{"127.0.0.1"}
		if given.Given("bind") {
			hosts = config.SplitAddresses(given.Value("bind"))
		}
		port := "0"
		if given.Given("port") {
			port = given.Value("port")
			tlsOnly = tlsOnly || (port == "0" && tlsCfg != nil)
		}
		addrs = joinHostsPort(hosts, port)
	}
	tlsAddrs = s.opts.TLSAddrs
	if tlsCfg != nil && len(tlsAddrs) == 0 {
		// The hosts of the plain addresses, on tls-port or a free port.
		var hosts []string
		for _, a := range addrs {
			host, _, err := net.SplitHostPort(strings.TrimPrefix(a, "-"))
			if err != nil {
				return nil, nil, false, err
			}
			hosts = append(hosts, a[:len(a)-len(strings.TrimPrefix(a, "-"))]+host)
		}
		tlsAddrs = joinHostsPort(hosts, given.Value("tls-port"))
	}
	return addrs, tlsAddrs, tlsOnly, nil
}

// joinHostsPort writes each host (a leading '-' kept: optional) with port.
func joinHostsPort(hosts []string, port string) []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		host := strings.TrimPrefix(h, "-")
		out[i] = h[:len(h)-len(host)] + net.JoinHostPort(host, port)
	}
	return out
}

// bindAddresses is what CONFIG GET bind reports: the parameter as given,
// else the hosts of the addresses the server listens on (plain and TLS).
func bindAddresses(given *config.Settings, addrs []string) []string {
	if given.Given("bind") {
		return config.SplitAddresses(given.Value("bind"))
	}
	var hosts []string
	for _, a := range addrs {
		opt := strings.HasPrefix(a, "-")
		host, _, err := net.SplitHostPort(strings.TrimPrefix(a, "-"))
		if err != nil {
			continue
		}
		if opt {
			host = "-" + host
		}
		if !slices.Contains(hosts, host) {
			hosts = append(hosts, host)
		}
	}
	return hosts
}

// listen opens the plain listeners on addrs (none with tlsOnly) and the
// TLS ones on tlsAddrs (with tlsCfg).
func (s *Server) listen(addrs, tlsAddrs []string, tlsCfg *tls.Config, tlsOnly bool) (lns []*portListener, tlns []net.Listener, err error) {
	if tlsOnly && tlsCfg == nil {
		return nil, nil, errors.New("lockredis: TLSOnly needs a TLSConfig")
	}
	if !tlsOnly {
		plain, err := listenAll(addrs, s.opts.Logf)
		if err != nil {
			return nil, nil, err
		}
		lns = movable(plain)
	}
	if tlsCfg == nil {
		return lns, nil, nil
	}
	if tlns, err = listenAll(tlsAddrs, s.opts.Logf); err != nil {
		for _, ln := range lns {
			ln.Close()
		}
		return nil, nil, err
	}
	return lns, tlns, nil
}

// serve runs an accept loop on ln until the server closes. lnMu is held.
func (s *Server) serve(ln net.Listener, tlsCfg *tls.Config) {
	s.serving.Add(1)
	go func() {
		defer s.serving.Done()
		var err error
		if tlsCfg != nil {
			err = s.srv.ServeTLS(ln, tlsCfg)
		} else {
			err = s.srv.Serve(ln)
		}
		if err != nil {
			s.lnMu.Lock()
			if s.serveErr == nil {
				s.serveErr = err
			}
			s.lnMu.Unlock()
		}
	}()
}

// paramHooks apply CONFIG SET port and bind: the plain listeners move to
// the new address (the value in force moves nothing); the clients
// connected stay.
func (s *Server) paramHooks() map[string]engine.ParamHook {
	return map[string]engine.ParamHook{
		"port": {
			Get: func() string {
				s.lnMu.Lock()
				defer s.lnMu.Unlock()
				if len(s.lns) == 0 {
					return "0"
				}
				return strconv.Itoa(s.lns[0].Addr().(*net.TCPAddr).Port)
			},
			Apply: func(port string) error {
				s.lnMu.Lock()
				defer s.lnMu.Unlock()
				if len(s.lns) > 0 && port == strconv.Itoa(s.lns[0].Addr().(*net.TCPAddr).Port) {
					return nil // already there
				}
				return s.rebind(s.bind, port, "Unable to listen on this port. Check server logs.")
			},
		},
		"bind": {
			Get: func() string {
				s.lnMu.Lock()
				defer s.lnMu.Unlock()
				return strings.Join(s.bind, " ")
			},
			Apply: func(bind string) error {
				s.lnMu.Lock()
				defer s.lnMu.Unlock()
				if len(s.lns) == 0 {
					return errTLSOnly
				}
				port := strconv.Itoa(s.lns[0].Addr().(*net.TCPAddr).Port)
				hosts := config.SplitAddresses(bind)
				if slices.Equal(hosts, s.bind) {
					return nil // already there
				}
				if err := s.rebind(hosts, port, "Failed to bind to specified addresses."); err != nil {
					return err
				}
				s.bind = hosts
				return nil
			},
		},
	}
}

var errTLSOnly = errors.New("lockredis listens on TLS only: it has no TCP port to move")

// rebind moves the plain listeners to hosts on port (0: a free one):
// the new ones open first, so that on failure nothing changed and the
// error is why. lnMu is held.
func (s *Server) rebind(hosts []string, port, why string) error {
	if len(s.lns) == 0 {
		return errTLSOnly
	}
	lns, err := listenAll(joinHostsPort(hosts, port), s.opts.Logf)
	if err != nil {
		return errors.New(why)
	}
	for _, ln := range s.lns {
		ln.retire()
	}
	s.lns = movable(lns)
	s.bound = listenerAddrs(s.lns)
	for _, ln := range s.lns {
		s.serve(ln, nil)
	}
	return nil
}
