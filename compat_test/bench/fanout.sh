#!/usr/bin/env bash
# fanout.sh: pub/sub fan-out of lockredis against redis-server on this
# machine: 1 publisher, SUBS subscribers on one channel, N messages of
# SIZE bytes, P PUBLISH commands in flight; the servers take turns ROUNDS
# times and the median round of each is reported.
#
#   compat_test/bench/fanout.sh                 # 100 subscribers, 5000 messages
#   SUBS=100 N=20000 SIZE=16 P=16 ROUNDS=3 compat_test/bench/fanout.sh
#
# Prints publishes per second and messages delivered per second for each
# server, and the ratio lockredis / redis-server. Every subscriber checks
# every message (numbered payloads): a lost, reordered or torn frame is
# reported as WRONG FRAMES and the script exits 1. Needs go, redis-server
# and redis-cli (apt-get install redis-server redis-tools).
set -euo pipefail

SUBS=${SUBS:-100}
N=${N:-5000}
SIZE=${SIZE:-16}
P=${P:-1}
ROUNDS=${ROUNDS:-3}
. "$(dirname "$0")/lib.sh"
need go redis-server redis-cli
start_pair
(cd "$ROOT/compat_test" && go build -o "$tmp/fanout" ./bench/fanout)

"$tmp/fanout" -redis "127.0.0.1:$redis_port" -lock "127.0.0.1:$lock_port" -subs "$SUBS" -n "$N" -size "$SIZE" -P "$P" -rounds "$ROUNDS"
