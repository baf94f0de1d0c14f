#!/usr/bin/env bash
# run.sh: the cost-per-command benchmark. Starts redis-server and lockredis
# (persistence off) on loopback ports and runs every lock workload on both
# in alternating rounds (compat_test/bench/suite), then pub/sub fan-out
# (compat_test/bench/fanout), a subscriber that never reads while STALL_MB
# megabytes are published to it (compat_test/bench/stall: the latency
# other clients see, RSS growth) and the memory each lock costs. Prints one
# table of throughput, server CPU per 100,000 operations (from
# /proc/PID/stat), p99 latency and the ratios lockredis / redis-server.
# Exits non-zero on any command error.
#
#   compat_test/bench/run.sh                   # 3 rounds, 200,000 requests
#   ROUNDS=5 N=100000 MEMKEYS=1000000 STALL_MB=300 compat_test/bench/run.sh
#
# Needs go, redis-server, redis-cli and redis-benchmark (apt-get install
# redis-server redis-tools). Single runs move by 30% on a shared 2-core
# machine: read the medians, and compare ratios, not absolute numbers.
set -euo pipefail

ROUNDS=${ROUNDS:-3}
N=${N:-200000}
MEMKEYS=${MEMKEYS:-1000000}
STALL_MB=${STALL_MB:-300}
. "$(dirname "$0")/lib.sh"
need go redis-server redis-cli redis-benchmark
start_pair --restart-fence off
(cd "$ROOT/compat_test" && go build -o "$tmp/suite" ./bench/suite && go build -o "$tmp/fanout" ./bench/fanout && go build -o "$tmp/stall" ./bench/stall)

echo "$(date -u +%Y-%m-%d) on $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(redis-server --version | cut -d' ' -f1-3), $ROUNDS rounds, medians"
"$tmp/suite" -redis "127.0.0.1:$redis_port" -redis-pid "$redis_pid" -lock "127.0.0.1:$lock_port" -lock-pid "$lock_pid" \
	-n "$N" -rounds "$ROUNDS" -fanout "$tmp/fanout" -stall "$tmp/stall" -stall-mb "$STALL_MB" -mem-keys "$MEMKEYS"
