#!/usr/bin/env bash
# callgrind.sh: instructions per operation of a server binary, counted by
# valgrind --tool=callgrind, for each lock workload, unpipelined and at
# -P16. Instruction counts do not move with the load of a shared machine,
# unlike throughput and CPU time, so this is the figure to compare two
# builds with (before/after a change, with and without default.pgo).
# The counts include everything the process runs: the Go runtime, GC,
# syscalls' user-space side (not the kernel's).
#
#   compat_test/bench/callgrind.sh [BINARY...]
#
# Each BINARY (default: lockredis built from this tree) is started under
# callgrind in turn; "redis-server" as a BINARY measures redis-server
# 7.0.15 the same way. N requests per workload (default 20000), C
# clients (default 8); W, a regular expression, picks workloads by name
# (default: all). Prints one line per binary and workload:
#   <binary> <workload> <instructions per op> (raw ..., idle rate ...)
# where what the idle server runs per second (crons, expiry), measured
# just before, times the workload's wall time is taken off.
# Needs valgrind, redis-server, redis-cli and redis-benchmark.
set -euo pipefail
N=${N:-20000}
C=${C:-8}
IDLE=${IDLE:-2} # seconds of idle measured before each workload
. "$(dirname "$0")/lib.sh"
need valgrind callgrind_control redis-cli redis-benchmark

bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	go -C "$ROOT/cmd/lockredis" build -o "$tmp/lockredis" .
	bins=("$tmp/lockredis")
fi

release='if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end'

# total PID: the instructions counted since the previous dump, which the
# dump zeroes.
total() {
	rm -f "$tmp"/cg.out.*
	callgrind_control -d "$1" >/dev/null 2>&1
	for _ in $(seq 200); do
		f=$(ls "$tmp"/cg.out.* 2>/dev/null | head -1 || true)
		if [ -n "$f" ] && grep -q '^totals:' "$f" 2>/dev/null; then
			awk '/^totals:/ {print $2}' "$f"
			return
		fi
		sleep 0.1
	done
	echo "$script: no callgrind dump from $1" >&2
	exit 1
}

for bin in "${bins[@]}"; do
	port=$(free_port)
	name=$(basename "$bin")
	if [ "$name" = redis-server ]; then
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out.%p" \
			redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >"$tmp/server.log" 2>&1 &
	else
		# Valgrind 3.19 neither survives the runtime's preemption signals
		# nor knows RDTSCP: turn both off (neither changes the work per
		# request).
		GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out.%p" \
			"$bin" --port "$port" --bind 127.0.0.1 --dir "$tmp" --appendonly no --restart-fence off >"$tmp/server.log" 2>&1 &
	fi
	pid=$!
	pids+=("$pid")
	for _ in $(seq 600); do
		[ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && break
		sleep 0.2
	done
	sha=$(redis-cli -p "$port" SCRIPT LOAD "$release")
	# Keys for GET, PEXPIRE, DEL and the release script to find: the
	# first workloads fill the keyspace (__rand_int__ below N).
	bench() { redis-benchmark -p "$port" -c "$C" -n "$N" -r "$N" "$@" >/dev/null 2>&1; }
	for p in 1 16; do
		for w in "SET NX PX" "GET" "PEXPIRE" "EVALSHA release" "DEL" "LOCK.ACQUIRE" "LOCK.RELEASE"; do
			if [ "$name" = redis-server ] && [[ $w == LOCK.* ]]; then
				continue
			fi
			if ! [[ "$w -P$p" =~ ${W:-.} ]]; then
				continue
			fi
			redis-cli -p "$port" SET lock:000000000001 tok >/dev/null
			# What the server runs by the clock (its crons, the expiry
			# sweep) grows with the wall time a workload takes, which
			# valgrind and a loaded machine stretch: measure that rate idle
			# and take it off.
			total "$pid" >/dev/null
			sleep "$IDLE"
			idle=$(total "$pid")
			t0=$(date +%s%N)
			case $w in
			"SET NX PX") bench -P "$p" SET lock:__rand_int__ tok NX PX 300000 ;;
			GET) bench -P "$p" GET lock:__rand_int__ ;;
			PEXPIRE) bench -P "$p" PEXPIRE lock:__rand_int__ 300000 ;;
			"EVALSHA release") bench -P "$p" EVALSHA "$sha" 1 lock:__rand_int__ tok ;;
			DEL) bench -P "$p" DEL lock:__rand_int__ ;;
			LOCK.ACQUIRE) bench -P "$p" LOCK.ACQUIRE lk:__rand_int__ tok 300000 ;;
			LOCK.RELEASE) bench -P "$p" LOCK.RELEASE lk:__rand_int__ tok ;;
			esac
			ins=$(total "$pid")
			t1=$(date +%s%N)
			clock=$((idle * (t1 - t0) / (IDLE * 1000000000)))
			# redis-benchmark's own PING handshake and the SET above are
			# noise against N requests.
			printf '%s\t%s -P%s\t%d\t(raw %d, idle rate %d/s)\n' "$name" "$w" "$p" $(((ins - clock) / N)) $((ins / N)) $((idle / IDLE))
		done
	done
	kill "$pid"
	wait "$pid" 2>/dev/null || true
done
