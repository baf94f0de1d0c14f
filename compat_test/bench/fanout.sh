#!/usr/bin/env bash
# fanout.sh: pub/sub fan-out of lockredis against redis-server on this
# machine: 1 publisher, SUBS subscribers on one channel, N messages of
# SIZE bytes, P PUBLISH commands in flight; the servers take turns ROUNDS
# times and the median round of each is reported.
#
#   compat_test/bench/fanout.sh                 # 100 subscribers, 5000 messages
#   SUBS=100 N=20000 SIZE=16 P=16 ROUNDS=3 compat_test/bench/fanout.sh
#
# Prints publishes per second and messages delivered per second for each
# server, and the ratio lockredis / redis-server. Every subscriber checks
# every message (numbered payloads): a lost, reordered or torn frame is
# reported as WRONG FRAMES and the script exits 1. Needs go, redis-server
# and redis-cli (apt-get install redis-server redis-tools).
set -euo pipefail

SUBS=${SUBS:-100}
N=${N:-5000}
SIZE=${SIZE:-16}
P=${P:-1}
ROUNDS=${ROUNDS:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

for tool in go redis-server redis-cli; do
	command -v "$tool" >/dev/null || { echo "fanout.sh: $tool not found" >&2; exit 1; }
done

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + RANDOM % 20000))
}

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$ROOT" && go build -o "$tmp/lockredis" ./cmd/lockredis)
(cd "$ROOT/compat_test" && go build -o "$tmp/fanout" ./bench/fanout)

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$tmp/redis.log" 2>&1 &
pids+=($!)
lock_port=$(free_port)
"$tmp/lockredis" --port "$lock_port" --bind 127.0.0.1 --appendonly no >"$tmp/lockredis.log" 2>&1 &
pids+=($!)

wait_ping() {
	for _ in $(seq 100); do
		[ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
		sleep 0.1
	done
	echo "fanout.sh: nothing answers on port $1" >&2
	exit 1
}
wait_ping "$redis_port"
wait_ping "$lock_port"

"$tmp/fanout" -redis "127.0.0.1:$redis_port" -lock "127.0.0.1:$lock_port" -subs "$SUBS" -n "$N" -size "$SIZE" -P "$P" -rounds "$ROUNDS"
