package lockredis

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
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
