#!/usr/bin/env bash
# connstorm.sh: resident memory (VmRSS from /proc/PID/status) of lockredis
# beside redis-server on this machine before, during and after a storm of
# N connections (default 10000), each opened, sent PING and answered, held
# until all are open, then closed together. "after" is sampled 1 s and
# AFTER s (default 10) after the last one closed.
#
#   compat_test/bench/connstorm.sh [N]
#   LOCKREDIS=/path/to/binary compat_test/bench/connstorm.sh   # another build
#
# Needs python3 (the client) and a hard open-files limit above N + 100.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-10000}
AFTER=${AFTER:-10}
RPORT=${RPORT:-16391}
LPORT=${LPORT:-16392}
work=$(mktemp -d)
bin=${LOCKREDIS:-}
if [ -z "$bin" ]; then
	bin=$work/lockredis
	go -C cmd/lockredis build -o "$bin" .
fi
ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

rss() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

# storm PORT PID: prints "during" once all N connections answered PING,
# then closes them all and waits for the server to count them gone.
storm() {
	python3 - "$1" "$N" <<'PY'
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
conns = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"PING\r\n")
    conns.append(s)
for s in conns:
    buf = b""
    while not buf.endswith(b"\r\n"):
        b = s.recv(64)
        if not b:
            sys.exit("connection closed before PONG: " + repr(buf))
        buf += b
    if buf != b"+PONG\r\n":
        sys.exit("unexpected reply " + repr(buf))
print("open", flush=True)
sys.stdin.readline()
for s in conns:
    s.close()
PY
}

measure() { # name port pid
	local name=$1 port=$2 pid=$3 before during after1 afterN
	sleep 1
	before=$(rss "$pid")
	coproc STORM { storm "$port"; }
	read -r _ <&"${STORM[0]}"
	during=$(rss "$pid")
	echo >&"${STORM[1]}"
	wait "$STORM_PID"
	until [ "$(redis-cli -p "$port" info clients | tr -d '\r' | awk -F: '/^connected_clients/ {print $2}')" = 1 ]; do sleep 0.1; done
	sleep 1
	after1=$(rss "$pid")
	sleep $((AFTER - 1))
	afterN=$(rss "$pid")
	printf '%-12s %10s %10s %12s %12s\n' "$name" "$before" "$during" "$after1" "$afterN"
}

redis-server --port "$RPORT" --bind 127.0.0.1 --save "" --appendonly no --maxclients $((N + 10)) --logfile "$work/redis.log" &
pids+=($!)
rpid=$!
"$bin" --port "$LPORT" --bind 127.0.0.1 --maxclients $((N + 10)) --logfile "$work/lockredis.log" &
pids+=($!)
lpid=$!
for p in "$RPORT" "$LPORT"; do
	until redis-cli -p "$p" ping >/dev/null 2>&1; do sleep 0.1; done
done
echo "RSS in MB, $N connections; after: 1 s and $AFTER s after they closed"
printf '%-12s %10s %10s %12s %12s\n' server before during "after 1s" "after ${AFTER}s"
measure redis-server "$RPORT" "$rpid"
measure lockredis "$LPORT" "$lpid"
