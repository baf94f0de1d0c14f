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
. "$(dirname "$0")/lib.sh"
need go redis-server redis-cli redis-benchmark
start_pair --restart-fence off

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
