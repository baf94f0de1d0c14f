#!/usr/bin/env bash
# mem.sh: what one held lock costs in memory, lockredis beside redis-server,
# counting what the OS sees (RSS growth over the load, garbage included)
# and what each server holds after MEMORY PURGE (compat_test/bench/mem).
# A fresh pair of servers per layout and round, since RSS does not shrink
# back; lockredis runs as the built binary with the arguments given (e.g.
# --maxmemory 2gb) and the environment (e.g. GOGC=50).
#
#   compat_test/bench/mem.sh                        # 1M string locks, 100k hash locks
#   KEYS=500000 ROUNDS=3 compat_test/bench/mem.sh --maxmemory 1gb
#
# PROFILE=DIR also writes heap profiles of an in-process server loaded the
# same way (DIR/string.pprof, DIR/hash.pprof; go tool pprof -top FILE).
set -euo pipefail

KEYS=${KEYS:-1000000}
ROUNDS=${ROUNDS:-1}
. "$(dirname "$0")/lib.sh"
need go redis-server redis-cli
(cd "$ROOT/compat_test" && go build -o "$tmp/mem" ./bench/mem)

echo "$(date -u +%Y-%m-%d) on $(nproc) CPUs, $(redis-server --version | cut -d' ' -f1-3), lockredis args: $* ${GOGC:+GOGC=$GOGC} ${GOMEMLIMIT:+GOMEMLIMIT=$GOMEMLIMIT}"
for round in $(seq "$ROUNDS"); do
	for layout in string hash; do
		n=$KEYS
		[ "$layout" = hash ] && n=$((KEYS / 10))
		start_pair --restart-fence off "$@"
		"$tmp/mem" -layout "$layout" -keys "$n" -redis "127.0.0.1:$redis_port" -redis-pid "$redis_pid" \
			-lock "127.0.0.1:$lock_port" -lock-pid "$lock_pid"
		kill "$redis_pid" "$lock_pid"
		wait "$redis_pid" "$lock_pid" 2>/dev/null || true
		pids=()
	done
done
if [ -n "${PROFILE:-}" ]; then
	mkdir -p "$PROFILE"
	for layout in string hash; do
		n=$KEYS
		[ "$layout" = hash ] && n=$((KEYS / 10))
		"$tmp/mem" -layout "$layout" -keys "$n" -profile "$PROFILE/$layout.pprof"
		echo "heap profile: $PROFILE/$layout.pprof"
	done
fi
