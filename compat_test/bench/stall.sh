#!/usr/bin/env bash
# stall.sh: a subscriber that never reads while MB megabytes are published
# to it, on redis-server and lockredis in turn (compat_test/bench/stall):
# the worst and p99 latency a third client sees for SET NX PX / GET
# meanwhile, the server's RSS growth and CPU time, and when the subscriber
# was dropped; with the default client-output-buffer-limit pubsub and with
# "pubsub 0 0 0", and with no subscriber (the baseline: what the big
# PUBLISH commands cost by themselves). The servers take turns ROUNDS
# times; medians.
#
#   compat_test/bench/stall.sh                  # 300 MB, 3 rounds
#   MB=100 ROUNDS=5 MODE=off compat_test/bench/stall.sh   # MODE: default, off or none
#
# Needs go, redis-server and redis-cli (apt-get install redis-server
# redis-tools). Exits non-zero on any command error.
set -euo pipefail

MB=${MB:-300}
ROUNDS=${ROUNDS:-3}
MODE=${MODE:-}
. "$(dirname "$0")/lib.sh"
need go redis-server redis-cli
start_pair --restart-fence off
(cd "$ROOT/compat_test" && go build -o "$tmp/stall" ./bench/stall)

"$tmp/stall" -redis "127.0.0.1:$redis_port" -redis-pid "$redis_pid" -lock "127.0.0.1:$lock_port" -lock-pid "$lock_pid" \
	-mb "$MB" -rounds "$ROUNDS" ${MODE:+-mode "$MODE"}
