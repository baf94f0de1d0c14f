# lib.sh: what the benchmark scripts share, sourced by them (not run).
# Sets ROOT (the repository) and tmp (removed at exit, with every process
# in pids killed), and provides:
#
#   need TOOL...            stop unless every tool is on PATH
#   free_port               a free TCP port on 127.0.0.1
#   wait_ping PORT          wait until a server answers PING there
#   start_pair [ARG...]     build lockredis, start redis-server and lockredis
#                           (persistence off, loopback, free ports; ARGs go
#                           to lockredis) and wait for both: sets
#                           redis_port, redis_pid, lock_port, lock_pid
#
# Callers set "set -euo pipefail" themselves.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=$(basename "$0")

need() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "$script: $tool not found" >&2; exit 1; }
	done
}

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

wait_ping() {
	for _ in $(seq 100); do
		[ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
		sleep 0.1
	done
	echo "$script: nothing answers on port $1" >&2
	exit 1
}

start_pair() {
	go -C "$ROOT/cmd/lockredis" build -o "$tmp/lockredis" .
	redis_port=$(free_port)
	redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$tmp/redis.log" 2>&1 &
	redis_pid=$!
	pids+=("$redis_pid")
	lock_port=$(free_port)
	"$tmp/lockredis" --port "$lock_port" --bind 127.0.0.1 --dir "$tmp" --appendonly no "$@" >"$tmp/lockredis.log" 2>&1 &
	lock_pid=$!
	pids+=("$lock_pid")
	wait_ping "$redis_port"
	wait_ping "$lock_port"
}
