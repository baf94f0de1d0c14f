#!/usr/bin/env bash
# pgo.sh: refreshes cmd/lockredis/default.pgo, the CPU profile that
# `go build` in cmd/lockredis uses for profile-guided optimisation. The
# profile is the lock workloads through the real server (TCP, guard,
# dispatcher, keyspace: BenchmarkLockCommands in the repository root), so
# it weighs the code a lock server runs. Refresh it after large changes to
# the hot path, then check the gain with callgrind.sh (the binary built
# with and without it: -pgo=off).
#
#   compat_test/bench/pgo.sh            # about a minute on a quiet machine
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$ROOT"
go test -run '^$' -bench BenchmarkLockCommands -benchtime "${BENCHTIME:-30000x}" \
	-cpuprofile "$tmp/cpu.pprof" -o "$tmp/lockredis.test" . >/dev/null
cp "$tmp/cpu.pprof" cmd/lockredis/default.pgo
echo "wrote cmd/lockredis/default.pgo ($(wc -c <cmd/lockredis/default.pgo) bytes)"
