#!/usr/bin/env bash
# lockwait.sh: 64 clients contending for ONE lock, critical section 0.1 ms,
# lockredis's LOCK.ACQUIRE ... WAIT against redis-server with the usual
# SET NX + jittered-retry loop and with Redisson-style pub/sub waiting (and
# those two against lockredis too), on loopback. Then the same for a
# readers/writer lock (LOCK.ACQUIRE [SHARED] WAIT against Redisson's
# RReadWriteLock scripts and pub/sub wake-up) and a semaphore
# (LOCK.ACQUIRE PERMITS n WAIT against redis-semaphore's script and polling
# loop), KIND_CLIENTS clients each holding HOLD. The methods take turns
# ROUNDS times; the median round of each is printed as a Markdown table
# (see bench/lockwait/main.go and kinds.go for what is measured).
#
#   compat_test/bench/lockwait.sh
#   CLIENTS=64 DURATION=3s ROUNDS=5 compat_test/bench/lockwait.sh
#   WORKLOADS=rw,sem KIND_CLIENTS=64 HOLD=1ms PERMITS=4 compat_test/bench/lockwait.sh
#   WORKLOADS=mutex MODES=queue,setnx,setnx1 BASE_BIN=/tmp/lockredis-main compat_test/bench/lockwait.sh
#
# MODES picks the mutex methods (queue, setnx: 10 ms retry, setnx1: 1 ms
# retry, pubsub). BASE_BIN, another lockredis binary (say main's, built
# with go -C cmd/lockredis build -o ...), runs beside this checkout's as
# "lockredis-base", its turns right after this one's, for a before/after
# figure from one run.
#
# Needs go, redis-server and redis-cli (apt-get install redis-server redis-tools).
set -euo pipefail

CLIENTS=${CLIENTS:-64}
DURATION=${DURATION:-3s}
ROUNDS=${ROUNDS:-3}
WORKLOADS=${WORKLOADS:-mutex,rw,sem}
KIND_CLIENTS=${KIND_CLIENTS:-64}
HOLD=${HOLD:-1ms}
PERMITS=${PERMITS:-4}
MODES=${MODES:-queue,setnx,setnx1,pubsub}
BASE_BIN=${BASE_BIN:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

for tool in go redis-server redis-cli; do
	command -v "$tool" >/dev/null || { echo "lockwait.sh: $tool not found" >&2; exit 1; }
done

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + RANDOM % 20000))
}

tmp=$(mktemp -d)
go -C "$ROOT/cmd/lockredis" build -o "$tmp/lockredis" .
(cd "$ROOT/compat_test" && go build -o "$tmp/lockwait" ./bench/lockwait)

RPORT=$(free_port)
LPORT=$(free_port)
redis-server --port "$RPORT" --save '' --appendonly no --daemonize no --loglevel warning >/dev/null &
rpid=$!
"$tmp/lockredis" --port "$LPORT" --dir "$tmp" --loglevel warning >/dev/null &
lpid=$!
base_args=()
bpid=
if [ -n "$BASE_BIN" ]; then
	BPORT=$(free_port)
	mkdir "$tmp/base"
	"$BASE_BIN" --port "$BPORT" --dir "$tmp/base" --loglevel warning >/dev/null &
	bpid=$!
	base_args=(-base "127.0.0.1:$BPORT" -base-pid "$bpid")
fi
trap 'kill $rpid $lpid $bpid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in $RPORT $LPORT ${BPORT:-}; do
	until redis-cli -p "$p" ping >/dev/null 2>&1; do sleep 0.05; done
done

"$tmp/lockwait" -lockredis "127.0.0.1:$LPORT" -lockredis-pid "$lpid" \
	-redis "127.0.0.1:$RPORT" -redis-pid "$rpid" \
	-clients "$CLIENTS" -duration "$DURATION" -rounds "$ROUNDS" \
	-modes "$MODES" "${base_args[@]}" \
	-workloads "$WORKLOADS" -kind-clients "$KIND_CLIENTS" -hold "$HOLD" -permits "$PERMITS"
