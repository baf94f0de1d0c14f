#!/bin/bash
# compat_test/bench/raft_failover.sh: see docs/replication.md#figures. Builds the binary from this checkout first.
set -u; cd "$(dirname "$0")/../.." && go -C cmd/lockredis build -o /tmp/lockredis-raft . || exit 1
# Failover time: kill -9 of the leader -> first LOCK.ACQUIRE granted through another node. ROUNDS rounds.
B=/tmp/lockredis-raft; D=$(mktemp -d); P="1=127.0.0.1:27501,2=127.0.0.1:27502,3=127.0.0.1:27503"
start() { mkdir -p $D/$1; $B --port 2760$1 --dir $D/$1 --raft-id $1 --raft-bind 127.0.0.1:2750$1 --raft-peers $P --loglevel warning >/dev/null 2>&1 & echo $! > $D/$1.pid; }
for i in 1 2 3; do start $i; done; sleep 3
for round in $(seq 1 ${ROUNDS:-5}); do
  L=; for i in 1 2 3; do [ "$(redis-cli -p 2760$i ROLE 2>/dev/null | head -1)" = master ] && L=$i; done
  O=1; [ "$L" = 1 ] && O=2
  kill -9 $(cat $D/$L.pid); S=$(date +%s%N)
  for k in $(seq 1 1000); do r=$(timeout 2 redis-cli -p 2760$O LOCK.ACQUIRE fl$round o 10000 2>&1); case "$r" in [0-9]*) break;; esac; sleep 0.005; done
  E=$(date +%s%N); echo "round $round: leader $L killed, first grant on node $O after $(( (E-S)/1000000 )) ms"
  start $L; sleep 3
done
for i in 1 2 3; do kill $(cat $D/$i.pid) 2>/dev/null; done; rm -rf $D
