#!/usr/bin/env bash
# stall.sh: a subscriber that never reads while MB megabytes are published
# to it, on redis-server and lockredis in turn (compat_test/bench/stall):
# the worst and p99 latency a third client sees for SET NX PX / GET
# meanwhile, the server's RSS growth and CPU time, and when the subscriber
# was dropped; with the default client-output-buffer-limit pubsub and with
# "pubsub 0 0 0", and with no subscriber (the baseline: what the big
# PUBLISH commands cost by themselves). The servers take turns ROUNDS
# times; medians.
#
#   compat_test/bench/stall.sh                  # 300 MB, 3 rounds
#   MB=100 ROUNDS=5 MODE=off compat_test/bench/stall.sh   # MODE: default, off or none
#
# Needs go, redis-server and redis-cli (apt-get install redis-server
# redis-tools). Exits non-zero on any command error.
set -euo pipefail

MB=${MB:-300}
ROUNDS=${ROUNDS:-3}
MODE=${MODE:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

for tool in go redis-server redis-cli; do
	command -v "$tool" >/dev/null || { echo "stall.sh: $tool not found" >&2; exit 1; }
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
(cd "$ROOT/compat_test" && go build -o "$tmp/stall" ./bench/stall)

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$tmp/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
lock_port=$(free_port)
"$tmp/lockredis" --port "$lock_port" --bind 127.0.0.1 --dir "$tmp" --appendonly no --restart-fence off >"$tmp/lockredis.log" 2>&1 &
lock_pid=$!
pids+=("$lock_pid")

wait_ping() {
	for _ in $(seq 100); do
		[ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
		sleep 0.1
	done
	echo "stall.sh: nothing answers on port $1" >&2
	exit 1
}
wait_ping "$redis_port"
wait_ping "$lock_port"

"$tmp/stall" -redis "127.0.0.1:$redis_port" -redis-pid "$redis_pid" -lock "127.0.0.1:$lock_port" -lock-pid "$lock_pid" \
	-mb "$MB" -rounds "$ROUNDS" ${MODE:+-mode "$MODE"}
