#!/usr/bin/env bash
# Throughput of the lock-acquire command, lockredis beside redis-server on
# the same machine in the same run:
#   SET lock:__rand_int__ tok NX PX 30000, redis-benchmark -c 50 -r 100000
# Usage: compat_test/bench/setnx.sh [requests] [pipeline]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-200000}
P=${2:-1}
RPORT=${RPORT:-16379}
LPORT=${LPORT:-16380}
bin=$(mktemp -d)/lockredis
go -C cmd/lockredis build -o "$bin" .
redis-server --port "$RPORT" --save '' --appendonly no --daemonize no --loglevel warning >/dev/null &
rpid=$!
"$bin" --port "$LPORT" --dir "$(dirname "$bin")" --loglevel warning >/dev/null &
lpid=$!
trap 'kill $rpid $lpid 2>/dev/null; wait 2>/dev/null' EXIT
for p in $RPORT $LPORT; do
	until redis-cli -p "$p" ping >/dev/null 2>&1; do sleep 0.05; done
done
run() {
	redis-benchmark -p "$1" -c 50 -r 100000 -n "$N" -P "$P" --csv \
		SET 'lock:__rand_int__' tok NX PX 30000 2>/dev/null | awk -F'","' 'NR==2 {print $2}'
}
# Alternate to spread machine noise over both.
r1=$(run $RPORT); l1=$(run $LPORT); l2=$(run $LPORT); r2=$(run $RPORT)
redis=$(echo "($r1 + $r2) / 2" | bc -l)
lock=$(echo "($l1 + $l2) / 2" | bc -l)
printf 'SET NX PX, -c 50 -P %s: redis-server %.0f req/s (%s, %s), lockredis %.0f req/s (%s, %s), ratio %.2f\n' \
	"$P" "$redis" "$r1" "$r2" "$lock" "$l1" "$l2" "$(echo "$lock / $redis" | bc -l)"
