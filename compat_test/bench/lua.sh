#!/usr/bin/env bash
# lua.sh: EVALSHA throughput of lockredis against redis-server on this
# machine, with the same redis-benchmark settings: a compare-and-delete
# release (redsync, redis-py...) and Redisson's reentrant tryLock.
#
#   compat_test/bench/lua.sh            # 50 clients, 200000 requests
#   C=50 N=200000 P=1 compat_test/bench/lua.sh
#
# Prints requests per second for each script and server, and the ratio
# lockredis / redis-server. Needs go, redis-server, redis-cli and
# redis-benchmark (apt-get install redis-server redis-tools).
set -euo pipefail

C=${C:-50}
N=${N:-200000}
P=${P:-1} # pipeline depth
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

for tool in go redis-server redis-cli redis-benchmark; do
	command -v "$tool" >/dev/null || { echo "lua.sh: $tool not found" >&2; exit 1; }
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

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$tmp/redis.log" 2>&1 &
pids+=($!)
lock_port=$(free_port)
extra=()
# A benchmark writes thousands of new keys at once: no restart fence.
if "$tmp/lockredis" --help 2>&1 | grep -q -- --restart-fence; then
	extra+=(--restart-fence off)
fi
"$tmp/lockredis" --port "$lock_port" --bind 127.0.0.1 --appendonly no "${extra[@]}" >"$tmp/lockredis.log" 2>&1 &
pids+=($!)

wait_ping() {
	for _ in $(seq 100); do
		[ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
		sleep 0.1
	done
	echo "lua.sh: nothing answers on port $1" >&2
	exit 1
}
wait_ping "$redis_port"
wait_ping "$lock_port"

RELEASE='if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end'
ACQUIRE="if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);"

# rps PORT SCRIPT KEY ARGS...: requests per second of EVALSHA SCRIPT.
rps() {
	local port=$1 script=$2
	shift 2
	local sha
	sha=$(redis-cli -p "$port" SCRIPT LOAD "$script")
	redis-benchmark -p "$port" -c "$C" -n "$N" -P "$P" -r 100000 -q EVALSHA "$sha" 1 "$@" |
		tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1
}

printf '%-26s %14s %14s %8s\n' "script (c=$C n=$N P=$P)" "redis-server" "lockredis" "ratio"
for name in release acquire; do
	if [ "$name" = release ]; then
		args=("$RELEASE" "lock:__rand_int__" "token")
	else
		args=("$ACQUIRE" "lock:__rand_int__" "30000" "uuid-1:1")
	fi
	r=$(rps "$redis_port" "${args[@]}")
	l=$(rps "$lock_port" "${args[@]}")
	ratio=$(awk -v l="$l" -v r="$r" 'BEGIN { printf "%.2f", l / r }')
	printf '%-26s %14s %14s %8s\n' "$name" "$r" "$l" "$ratio"
done
