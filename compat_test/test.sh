#!/usr/bin/env bash
# Runs every test of lockredis: the root module, cmd/lockredis and
# compat_test. On a fresh Debian/Ubuntu machine with only Go it first
# installs what the tests need: redis-server (the oracle of the
# differential tests), redis-cli and redis-benchmark, node with the node
# lock clients, python3-redis, ruby with ruby-redis (the Ruby recipes of
# docs/locks.md), promtool, systemd-analyze and logrotate (for contrib/),
# staticcheck, and as root nftables (the fault tests' partitions).
#
#   bash compat_test/test.sh            # from any directory
#   bash compat_test/test.sh -run Lock  # extra arguments go to every go test
#   LOCKREDIS_FUZZTIME=0 bash compat_test/test.sh   # skip the fuzz step
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$(date +%s)
report_time() {
	local status=$? took=$(($(date +%s) - start))
	echo "compat_test/test.sh: $([ "$status" = 0 ] && echo passed || echo FAILED) in $((took / 60))m$((took % 60))s"
}
trap report_time EXIT

if ! command -v go >/dev/null; then
	# The binary's module asks for the newest Go of the three.
	echo "compat_test/test.sh: go is not on PATH; install Go $(sed -n 's/^go //p' cmd/lockredis/go.mod) or newer (https://go.dev/dl/)" >&2
	exit 1
fi

# What is missing, as Debian packages.
PKGS=()
if ! command -v redis-server >/dev/null; then
	PKGS+=(redis-server)
fi
if ! command -v redis-cli >/dev/null || ! command -v redis-benchmark >/dev/null; then
	PKGS+=(redis-tools)
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	PKGS+=(nodejs npm)
fi
# Debian's python3-redis serves /usr/bin/python3, which compat_test tries
# first (python_test.go).
if ! /usr/bin/python3 -c 'import redis' 2>/dev/null && ! python3 -c 'import redis' 2>/dev/null; then
	PKGS+=(python3-redis)
fi
# The fault tests partition nodes with nftables rules, which need root
# (compat_test/jepsen_net_linux_test.go); without root they run without
# partitions, so nft is only wanted as root.
if [ "$(id -u)" = 0 ] && ! command -v nft >/dev/null; then
	PKGS+=(nftables)
fi
# What reads contrib/ (compat_test/contrib_test.go): promtool checks the
# alert rules, systemd-analyze the unit, logrotate rotates a server's log.
# prometheus is installed without its recommended node exporter, another
# service the tests have no use for.
NORECOMMENDS=()
if ! command -v promtool >/dev/null; then
	NORECOMMENDS+=(prometheus)
fi
if ! command -v systemd-analyze >/dev/null; then
	PKGS+=(systemd)
fi
if ! command -v logrotate >/dev/null && [ ! -x /usr/sbin/logrotate ]; then
	PKGS+=(logrotate)
fi

# Debian's ruby-redis is redis-rb for Debian's ruby.
if ! command -v ruby >/dev/null || ! ruby -e 'require "redis"' 2>/dev/null; then
	PKGS+=(ruby ruby-redis)
fi

# service_active NAME: a service of that name runs.
service_active() {
	if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
		systemctl is-active --quiet "$1" 2>/dev/null
	else
		command -v service >/dev/null && service "$1" status >/dev/null 2>&1
	fi
}

if [ $((${#PKGS[@]} + ${#NORECOMMENDS[@]})) -gt 0 ]; then
	SUDO=()
	if [ "$(id -u)" != 0 ]; then
		if ! command -v sudo >/dev/null; then
			echo "compat_test/test.sh: the tests need these packages, and without root or sudo this script cannot install them:" >&2
			echo "    apt-get install ${PKGS[*]} ${NORECOMMENDS[*]}" >&2
			echo "Run that as root, then run this script again." >&2
			exit 1
		fi
		SUDO=(sudo)
	fi
	if ! command -v apt-get >/dev/null; then
		echo "compat_test/test.sh: no apt-get here; install the equivalent of these Debian packages: ${PKGS[*]} ${NORECOMMENDS[*]}" >&2
		exit 1
	fi
	# The redis-server and prometheus packages start services (on ports
	# 6379 and 9090). The tests start their own servers on free ports, so
	# a service this install started is only in the way: stop it (one that
	# ran before stays).
	services=(redis-server prometheus)
	was_running=()
	for svc in "${services[@]}"; do
		if service_active "$svc"; then was_running+=("$svc"); fi
	done
	echo "+ apt-get install ${PKGS[*]} ${NORECOMMENDS[*]}"
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
	if [ ${#PKGS[@]} -gt 0 ]; then
		"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${PKGS[@]}"
	fi
	if [ ${#NORECOMMENDS[@]} -gt 0 ]; then
		"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${NORECOMMENDS[@]}"
	fi
	for svc in "${services[@]}"; do
		if [[ " ${was_running[*]} " != *" $svc "* ]] && service_active "$svc"; then
			echo "+ stopping the $svc service the install started"
			if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
				"${SUDO[@]}" systemctl stop "$svc" || true
			else
				"${SUDO[@]}" service "$svc" stop >/dev/null 2>&1 || true
			fi
		fi
	done
fi

# The node clients, at the exact versions of the committed lockfile. npm ci
# deletes and rewrites node_modules, so run it only when node_modules is
# missing or was installed from another lockfile.
lock=compat_test/node/package-lock.json
stamp=compat_test/node/node_modules/.lockredis-lockfile.sha256
if [ ! -f "$stamp" ] || [ "$(sha256sum <"$lock")" != "$(cat "$stamp")" ]; then
	echo "+ npm ci --prefix compat_test/node --no-audit --no-fund"
	npm ci --prefix compat_test/node --no-audit --no-fund
	sha256sum <"$lock" >"$stamp"
fi

# staticcheck, pinned: the version that knows this Go release. Installed
# with go install into GOBIN (or GOPATH/bin), which need not be on PATH.
STATICCHECK_VERSION=v0.8.2
gobin=$(go env GOBIN)
staticcheck=${gobin:-$(go env GOPATH)/bin}/staticcheck
if ! "$staticcheck" -version 2>/dev/null | grep -qF "(${STATICCHECK_VERSION#v})"; then
	echo "+ go install honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
	go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi

go version
redis-server --version
# Three modules: the library (the root), the server binary (cmd/lockredis,
# its own module so that its dependencies stay out of the library's users'
# builds) and compat_test.
args=$(printf ' %q' -race "$@")
echo "+ go test$args ./... && (cd cmd/lockredis && go test$args ./...) && (cd compat_test && go test$args ./...)"
go test -race "$@" ./...
(cd cmd/lockredis && go test -race "$@" ./...)
# compat_test runs servers, clients and the fault tests: more than go
# test's default 10 minutes on a loaded 2-core machine.
(cd compat_test && go test -race -timeout 25m "$@" ./...)

# go vet and staticcheck (staticcheck.conf says which checks), the three modules.
echo "+ go vet ./... && staticcheck ./... (the three modules)"
go vet ./...
(cd cmd/lockredis && go vet ./...)
(cd compat_test && go vet ./...)
"$staticcheck" ./...
(cd cmd/lockredis && "$staticcheck" ./...)
(cd compat_test && "$staticcheck" ./...)

# A bounded run of every fuzz target (after the tests, without -race):
# LOCKREDIS_FUZZTIME per target, 12s by default (about 2 minutes in all on
# 2 cores); 0 skips the step, which is also skipped when extra arguments
# chose tests, unless LOCKREDIS_FUZZTIME is set. A crash fails the run and
# leaves its input in the package's testdata/fuzz/FuzzX/ (commit it with
# the fix: it then runs as a regression test). So does a stall: an input
# still running after 1s ends its worker (internal/fuzzwatch, deferred by
# each target), and the engine writes it out. -fuzzminimizetime
# 100x: Go minimizes every new interesting input for up to 60s by
# default, reporting 0 execs/s all the while; inside a 12s run a late
# find spent the rest of it minimizing, and the run could end with
# "context deadline exceeded" mid-minimization. Longer by hand:
#   go test -run '^$' -fuzz '^FuzzDispatch$' -fuzztime 10m .
fuzztime=${LOCKREDIS_FUZZTIME:-12s}
if [ $# -gt 0 ] && [ -z "${LOCKREDIS_FUZZTIME:-}" ]; then
	fuzztime=0
fi
if [ "$fuzztime" != 0 ]; then
	for target in ./resp:FuzzGuard ./resp:FuzzServer ./engine:FuzzGlob ./keyspace:FuzzValueEncoding \
		./engine:FuzzCollectionEncoding ./engine:FuzzCorruptStoredValue ./engine:FuzzRestorePayload ./keyspace:FuzzChangeBatchUnmarshal \
		./keyspace:FuzzRestoreSnapshot ./luasvc:FuzzLuaReply ./luasvc:FuzzLuaSyntax .:FuzzDispatch; do
		pkg=${target%%:*} name=${target#*:}
		echo "+ go test -run '^\$' -fuzz '^$name\$' -fuzztime $fuzztime -fuzzminimizetime 100x $pkg"
		fuzzlog=$(mktemp)
		if ! go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime 100x "$pkg" 2>&1 | tee "$fuzzlog"; then
			# Go 1.26's fuzzing coordinator can fail a run that found
			# nothing with a bare "context deadline exceeded" as the
			# -fuzztime deadline fires (go.dev/issue/75804, fixed in Go
			# 1.27). That, and only that, runs once more: a finding or a
			# stall always writes its input first.
			if grep -q 'context deadline exceeded' "$fuzzlog" && ! grep -q 'Failing input written to' "$fuzzlog"; then
				echo "compat_test/test.sh: $name: Go's coordinator deadline race (go.dev/issue/75804), no input written; running it once more"
				go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime 100x "$pkg"
			else
				rm -f "$fuzzlog"
				exit 1
			fi
		fi
		rm -f "$fuzzlog"
	done
fi
