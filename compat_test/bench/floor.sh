#!/usr/bin/env bash
# floor.sh: how fast can a server on lockredis's fixed stack be? Runs the
# lock loads of setnx.sh and lua.sh (redis-benchmark -c 50 -r 100000: SET
# NX PX, EVALSHA of a compare-and-delete release and of Redisson's
# reentrant acquire) against these servers on this machine, taking turns
# ROUNDS times, and prints the median of each and its ratio to redis-server:
#   redis-server      the oracle
#   redcon no-op      redcon's server answering +OK to everything (floor/)
#   redcon + buntdb   the same plus one buntdb Get+Set per SET (floor/;
#                     SET only)
#   lockredis         the real thing, persistence off
# "redcon no-op" bounds what any server built on redcon can reach here,
# whatever it does per command; "redcon + buntdb" adds the keyspace. Needs go, redis-server, redis-benchmark.
#
#   compat_test/bench/floor.sh            # N=100000 ROUNDS=5
set -euo pipefail
N=${N:-100000}
ROUNDS=${ROUNDS:-5}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

for tool in go redis-server redis-cli redis-benchmark; do
	command -v "$tool" >/dev/null || { echo "floor.sh: $tool not found" >&2; exit 1; }
done
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go -C "$ROOT/cmd/lockredis" build -o "$tmp/lockredis" .
(cd "$ROOT/compat_test" && go build -o "$tmp/floor" ./bench/floor)

names=("redis-server" "redcon no-op" "redcon + buntdb" "lockredis")
ports=()
for i in 0 1 2 3; do ports+=("$(free_port)"); done
redis-server --port "${ports[0]}" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null 2>&1 &
pids+=($!)
"$tmp/floor" -port "${ports[1]}" -mode noop &
pids+=($!)
"$tmp/floor" -port "${ports[2]}" -mode buntdb &
pids+=($!)
"$tmp/lockredis" --port "${ports[3]}" --bind 127.0.0.1 --appendonly no --restart-fence off --loglevel warning >/dev/null &
pids+=($!)
for p in "${ports[@]}"; do
	for _ in $(seq 100); do
		redis-cli -p "$p" PING >/dev/null 2>&1 && break
		sleep 0.1
	done
done

RELEASE='if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end'
ACQUIRE="if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);"
for i in 0 3; do
	rsha=$(redis-cli -p "${ports[$i]}" SCRIPT LOAD "$RELEASE")
	asha=$(redis-cli -p "${ports[$i]}" SCRIPT LOAD "$ACQUIRE")
done
# Each workload uses its own keys: the acquire script's hashes must not
# meet the strings of SET.
workloads=(set release acquire)
declare -A cmdline=(
	[set]="SET lock:__rand_int__ tok NX PX 30000"
	[release]="EVALSHA $rsha 1 rel:__rand_int__ token"
	[acquire]="EVALSHA $asha 1 acq:__rand_int__ 30000 uuid-1:1"
)
run() {
	# shellcheck disable=SC2086 # the command is split into arguments
	redis-benchmark -p "$1" -c 50 -r 100000 -n "$N" --csv ${cmdline[$2]} 2>/dev/null |
		awk -F'","' 'NR==2 {print $2}'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-9s %-16s %12s %7s   %s\n' "workload" "server" "median req/s" "ratio" "rounds"
for w in "${workloads[@]}"; do
	servers=(0 1 3)
	[ "$w" = set ] && servers=(0 1 2 3) # the buntdb floor only knows SET
	declare -A results=()
	for round in $(seq "$ROUNDS"); do
		# Rotate the starting server each round to spread machine noise.
		k=${#servers[@]}
		for j in $(seq 0 $((k - 1))); do
			i=${servers[$(((round + j) % k))]}
			results[$i]+="$(run "${ports[$i]}" "$w") "
		done
	done
	base=$(echo "${results[0]}" | median)
	for i in "${servers[@]}"; do
		m=$(echo "${results[$i]}" | median)
		printf '%-9s %-16s %12.0f %7.2f   %s\n' "$w" "${names[$i]}" "$m" "$(echo "$m / $base" | bc -l)" "${results[$i]}"
	done
	unset results
done
