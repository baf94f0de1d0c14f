#!/usr/bin/env bash
# netloop.sh: what the network loop costs, and how lockredis scales with
# GOMAXPROCS (issue #21). Starts, on loopback ports, with persistence off:
#   redis-server        the oracle (one event loop, one thread)
#   lockredis           GOMAXPROCS as the machine gives (2 here), and =1
#   redcon no-op        +OK to everything on redcon's goroutine per connection
#   gnet no-op          +OK to everything on gnet's event loops (one per core,
#                       and one loop), redcon's parser (floor/gnet.go)
# and runs compat_test/bench/loops twice: the loops (SET NX PX c50 and -P16,
# then one run each under perf stat: syscalls, futex wake-ups, context
# switches per request), and the scaling of lockredis (the same plus 64
# clients acquiring and releasing their own keys). TURNS turns each,
# medians, server CPU per op from /proc. PERF=0 skips the perf runs.
#
#   compat_test/bench/netloop.sh            # N=200000 TURNS=5
set -euo pipefail
N=${N:-200000}
TURNS=${TURNS:-5}
PERF=${PERF:-1}
. "$(dirname "$0")/lib.sh"
need go redis-server redis-cli redis-benchmark
[ "$PERF" = 1 ] && need perf
start_pair --restart-fence off --loglevel warning
(cd "$ROOT/compat_test" && go build -o "$tmp/floor" ./bench/floor && go build -o "$tmp/loops" ./bench/loops)
lock1_port=$(free_port)
GOMAXPROCS=1 "$tmp/lockredis" --port "$lock1_port" --bind 127.0.0.1 --dir "$tmp" --appendonly no --restart-fence off --loglevel warning >"$tmp/lockredis1.log" 2>&1 &
lock1_pid=$!
pids+=("$lock1_pid")
redcon_port=$(free_port)
"$tmp/floor" -port "$redcon_port" -mode noop &
redcon_pid=$!
pids+=("$redcon_pid")
gnet_port=$(free_port)
"$tmp/floor" -port "$gnet_port" -mode gnet >/dev/null 2>&1 &
gnet_pid=$!
pids+=("$gnet_pid")
gnet1_port=$(free_port)
"$tmp/floor" -port "$gnet1_port" -mode gnet -loops 1 >/dev/null 2>&1 &
gnet1_pid=$!
pids+=("$gnet1_pid")
for p in "$lock1_port" "$redcon_port" "$gnet_port" "$gnet1_port"; do
	for _ in $(seq 100); do
		redis-cli -p "$p" PING >/dev/null 2>&1 && break
		sleep 0.1
	done
done
perf=()
[ "$PERF" = 1 ] && perf=(-perf)

echo "$(date -u +%Y-%m-%d) on $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(redis-server --version | cut -d' ' -f1-3), $(go version | cut -d' ' -f3)"
echo
echo "## The loops"
"$tmp/loops" -n "$N" -turns "$TURNS" -load set,setP16 "${perf[@]}" \
	-server "redis-server=127.0.0.1:$redis_port=$redis_pid" \
	-server "redcon no-op=127.0.0.1:$redcon_port=$redcon_pid" \
	-server "gnet no-op (2 loops)=127.0.0.1:$gnet_port=$gnet_pid" \
	-server "gnet no-op (1 loop)=127.0.0.1:$gnet1_port=$gnet1_pid" \
	-server "lockredis=127.0.0.1:$lock_port=$lock_pid"
echo
echo "## lockredis with GOMAXPROCS 1 and 2"
"$tmp/loops" -n "$N" -turns "$TURNS" -load set,setP16,cycles \
	-server "redis-server=127.0.0.1:$redis_port=$redis_pid" \
	-server "lockredis GOMAXPROCS=2=127.0.0.1:$lock_port=$lock_pid" \
	-server "lockredis GOMAXPROCS=1=127.0.0.1:$lock1_port=$lock1_pid"
