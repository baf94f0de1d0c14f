#!/usr/bin/env bash
# Runs every test of lockredis: the root module and compat_test. On a fresh
# Debian/Ubuntu machine with only Go it first installs what the tests need:
# redis-server (the oracle of the differential tests), redis-cli and
# redis-benchmark, node with the node lock clients, python3-redis, ruby with
# ruby-redis (the Ruby recipes of docs/locks.md), and staticcheck.
#
#   bash compat_test/test.sh            # from any directory
#   bash compat_test/test.sh -run Lock  # extra arguments go to both go test
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
	echo "compat_test/test.sh: go is not on PATH; install Go $(sed -n 's/^go //p' go.mod) or newer (https://go.dev/dl/)" >&2
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

# Debian's ruby-redis is redis-rb for Debian's ruby.
if ! command -v ruby >/dev/null || ! ruby -e 'require "redis"' 2>/dev/null; then
	PKGS+=(ruby ruby-redis)
fi

redis_service_active() {
	if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
		systemctl is-active --quiet redis-server 2>/dev/null
	else
		command -v service >/dev/null && service redis-server status >/dev/null 2>&1
	fi
}

if [ ${#PKGS[@]} -gt 0 ]; then
	SUDO=()
	if [ "$(id -u)" != 0 ]; then
		if ! command -v sudo >/dev/null; then
			echo "compat_test/test.sh: the tests need these packages, and without root or sudo this script cannot install them:" >&2
			echo "    apt-get install ${PKGS[*]}" >&2
			echo "Run that as root, then run this script again." >&2
			exit 1
		fi
		SUDO=(sudo)
	fi
	if ! command -v apt-get >/dev/null; then
		echo "compat_test/test.sh: no apt-get here; install the equivalent of these Debian packages: ${PKGS[*]}" >&2
		exit 1
	fi
	was_running=no
	if redis_service_active; then was_running=yes; fi
	echo "+ apt-get install ${PKGS[*]}"
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${PKGS[@]}"
	# The redis-server package starts a service on port 6379. The tests
	# start their own servers on free ports, so a service this install
	# started is only in the way: stop it (one that ran before stays).
	if [ "$was_running" = no ] && redis_service_active; then
		echo "+ stopping the redis-server service the install started"
		if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
			"${SUDO[@]}" systemctl stop redis-server || true
		else
			"${SUDO[@]}" service redis-server stop >/dev/null 2>&1 || true
		fi
	fi
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
args=$(printf ' %q' -race "$@")
echo "+ go test$args ./... && (cd compat_test && go test$args ./...)"
go test -race "$@" ./...
(cd compat_test && go test -race "$@" ./...)

# go vet and staticcheck (staticcheck.conf says which checks), both modules.
echo "+ go vet ./... && staticcheck ./... (both modules)"
go vet ./...
(cd compat_test && go vet ./...)
"$staticcheck" ./...
(cd compat_test && "$staticcheck" ./...)

# A bounded run of every fuzz target (after the tests, without -race):
# LOCKREDIS_FUZZTIME per target, 12s by default (about 2 minutes in all on
# 2 cores); 0 skips the step, which is also skipped when extra arguments
# chose tests, unless LOCKREDIS_FUZZTIME is set. A crash fails the run and
# leaves its input in the package's testdata/fuzz/FuzzX/ (commit it with
# the fix: it then runs as a regression test). Longer by hand:
#   go test -run '^$' -fuzz '^FuzzDispatch$' -fuzztime 10m .
fuzztime=${LOCKREDIS_FUZZTIME:-12s}
if [ $# -gt 0 ] && [ -z "${LOCKREDIS_FUZZTIME:-}" ]; then
	fuzztime=0
fi
if [ "$fuzztime" != 0 ]; then
	for target in ./resp:FuzzGuard ./resp:FuzzServer ./engine:FuzzGlob ./engine:FuzzValueEncoding \
		./engine:FuzzCollectionEncoding ./engine:FuzzCorruptStoredValue ./engine:FuzzRestorePayload ./engine:FuzzChangeBatchUnmarshal \
		./engine:FuzzRestoreSnapshot ./luasvc:FuzzLuaReply .:FuzzDispatch; do
		pkg=${target%%:*} name=${target#*:}
		echo "+ go test -run '^\$' -fuzz '^$name\$' -fuzztime $fuzztime $pkg"
		fuzzlog=$(mktemp)
		if ! go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tee "$fuzzlog"; then
			# Go's fuzzing engine fails with "context deadline exceeded"
			# when a worker is still inside a slow input as the time runs
			# out: no input failed, so the target runs once more. A real
			# failure writes its input to testdata and fails the run.
			if grep -q 'context deadline exceeded' "$fuzzlog" && ! grep -q 'Failing input written' "$fuzzlog"; then
				echo "+ $name: the fuzzing engine stopped on a slow input, not a failure: once more"
				go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "$pkg"
			else
				rm -f "$fuzzlog"
				exit 1
			fi
		fi
		rm -f "$fuzzlog"
	done
fi
