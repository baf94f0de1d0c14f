#!/usr/bin/env bash
# Throughput of the lock-acquire command with an append-only file, lockredis
# beside redis-server on the same machine in the same run, for each fsync
# policy (each server in its own temporary directory):
#   SET lock:__rand_int__ tok NX PX 30000, redis-benchmark -c 50 -r 100000
# The servers take turns ROUNDS times (default 5) and the median of each is
# reported: this machine's noise moves single runs by +-30%.
# Usage: compat_test/bench/aof.sh [requests] [policies...]
#   default: 100000 requests, policies always everysec
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-100000}
ROUNDS=${ROUNDS:-5}
shift || true
POLICIES=("${@:-always everysec}")
POLICIES=(${POLICIES[@]})
RPORT=${RPORT:-16381}
LPORT=${LPORT:-16382}
work=$(mktemp -d)
bin=$work/lockredis
go -C cmd/lockredis build -o "$bin" .
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
waitup() { until redis-cli -p "$1" ping >/dev/null 2>&1; do sleep 0.05; done; }
run() {
	redis-benchmark -p "$1" -c 50 -r 100000 -n "$N" --csv \
		SET 'lock:__rand_int__' tok NX PX 30000 2>/dev/null | awk -F'","' 'NR==2 {print $2}'
}

printf '%-9s %14s %14s %7s\n' appendfsync redis-server lockredis ratio
for policy in "${POLICIES[@]}"; do
	rdir=$work/redis-$policy ldir=$work/lockredis-$policy
	mkdir -p "$rdir" "$ldir"
	redis-server --port "$RPORT" --save '' --appendonly yes --appendfsync "$policy" \
		--dir "$rdir" --daemonize no --loglevel warning >/dev/null &
	rpid=$!
	"$bin" --port "$LPORT" --appendonly yes --appendfsync "$policy" --dir "$ldir" --loglevel warning >/dev/null &
	lpid=$!
	pids=("$rpid" "$lpid")
	waitup "$RPORT"
	waitup "$LPORT"
	# Take turns, each starting every other round, to spread machine noise.
	rs=() ls=()
	for round in $(seq "$ROUNDS"); do
		if ((round % 2)); then
			rs+=("$(run "$RPORT")"); ls+=("$(run "$LPORT")")
		else
			ls+=("$(run "$LPORT")"); rs+=("$(run "$RPORT")")
		fi
	done
	kill "$rpid" "$lpid"
	wait "$rpid" "$lpid" 2>/dev/null || true
	pids=()
	redis=$(median "${rs[@]}")
	lock=$(median "${ls[@]}")
	printf '%-11s %12.0f/s %12.0f/s %7.2f   (runs: redis %s; lockredis %s)\n' \
		"$policy" "$redis" "$lock" "$(echo "$lock / $redis" | bc -l)" "${rs[*]}" "${ls[*]}"
done
