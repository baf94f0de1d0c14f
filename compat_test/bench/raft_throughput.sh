#!/bin/bash
# compat_test/bench/raft_throughput.sh: see docs/replication.md#figures. Builds the binary from this checkout first.
# Throughput of SET NX PX at c50: 3-node group (client on the leader) vs standalone --appendfsync always,
# alternating, ROUNDS rounds (default 3). Each line gives the load average before the round and the CPU
# (ms, user+system) the measured side's processes used during it: all three nodes for the group.
set -u; cd "$(dirname "$0")/../.." && go -C cmd/lockredis build -o /tmp/lockredis-raft . || exit 1
B=/tmp/lockredis-raft; D=$(mktemp -d); P="1=127.0.0.1:27301,2=127.0.0.1:27302,3=127.0.0.1:27303"
for i in 1 2 3; do mkdir -p $D/$i; $B --port 2740$i --dir $D/$i --raft-id $i --raft-bind 127.0.0.1:2730$i --raft-peers $P --loglevel warning >/dev/null 2>&1 & echo $! >> $D/pids; done
mkdir -p $D/s; $B --port 27410 --dir $D/s --appendonly yes --appendfsync always --loglevel warning >/dev/null 2>&1 & echo $! >> $D/pids
sleep 3
L=; for i in 1 2 3; do [ "$(redis-cli -p 2740$i ROLE | head -1)" = master ] && L=2740$i; done
echo "leader port $L"
hz=$(getconf CLK_TCK)
cpu() { local t=0 p; for p in "$@"; do set -- $(cut -d')' -f2 /proc/$p/stat); t=$((t + ${12} + ${13})); done; echo $((t * 1000 / hz)); }
for round in $(seq 1 ${ROUNDS:-3}); do
  for port in 27410 $L; do
    if [ $port = 27410 ]; then pids=$(sed -n 4p $D/pids); else pids=$(head -3 $D/pids); fi
    load=$(cut -d' ' -f1 /proc/loadavg); c0=$(cpu $pids)
    r=$(redis-benchmark -p $port -c 50 -n ${N:-20000} -r 1000000 -q SET key:__rand_int__ v NX PX 60000 2>/dev/null | tr '\r' '\n' | grep 'requests per second' | tail -1)
    echo "round $round port $port: $r (load $load, cpu $(( $(cpu $pids) - c0 )) ms)"
  done
done
echo "log entries: $(redis-cli -p $L RAFT.INFO | grep '^last_log_index:' | tr -d '\r' | cut -d: -f2)"
# memory and disk per node
for i in 1 2 3; do echo "node $i: $(redis-cli -p 2740$i INFO memory | grep '^used_memory:' | tr -d '\r') rss=$(ps -o rss= -p $(sed -n ${i}p $D/pids))KB disk=$(du -sh $D/$i/raft | cut -f1) keys=$(redis-cli -p 2740$i DBSIZE)"; done
echo "standalone: rss=$(ps -o rss= -p $(sed -n 4p $D/pids))KB disk=$(du -sh $D/s | cut -f1)"
kill $(cat $D/pids); rm -rf $D
