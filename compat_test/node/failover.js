// ioredis (and node-redlock over it) across a replicated group's leader
// failover. Run by ../failover_linux_test.go as: node failover.js MODE
// host:port... where MODE is "sentinel" (ioredis with the nodes as its
// sentinels, the group's name "mymaster"; node-redlock and a plain SET NX
// PX lock with Lua compare-and-delete) or "cluster" (ioredis's Cluster;
// the plain lock). The script takes its locks, prints "kill" and waits
// for a line on stdin: meanwhile the test kills the leader with SIGKILL.
// Then every lock must still be held (another owner is refused as soon as
// the group answers again) and still be its owner's (extend, release),
// and the other owner gets it once released.
'use strict';
const crypto = require('crypto');
const readline = require('readline');
const Redis = require('ioredis');
const { default: Redlock, ExecutionError } = require('redlock');
const { check, ok, sleep, hostPort } = require('./lib');

const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const EXTEND = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

// retry runs fn until it answers: while the group elects a new leader a
// client sees closed connections, no master yet, TRYAGAIN, CLUSTERDOWN.
async function retry(what, fn, within = 20000) {
  const deadline = Date.now() + within;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ExecutionError || Date.now() > deadline) {
        throw new Error('FAIL ' + what + ': ' + err);
      }
      await sleep(50);
    }
  }
}

function connect(mode, addrs) {
  const nodes = addrs.map(hostPort);
  // maxRetriesPerRequest 1: a command fails fast during the election and
  // retry() above tries again, so the test sees each answer.
  if (mode === 'sentinel') {
    return new Redis({ sentinels: nodes, name: 'mymaster', maxRetriesPerRequest: 1, connectTimeout: 1000 });
  }
  if (mode === 'cluster') {
    return new Redis.Cluster(nodes, { redisOptions: { maxRetriesPerRequest: 1, connectTimeout: 1000 } });
  }
  throw new Error('unknown mode ' + mode);
}

async function main(mode, addrs) {
  const a = connect(mode, addrs);
  const b = connect(mode, addrs);
  const waitLine = () => new Promise((resolve) => readline.createInterface({ input: process.stdin }).once('line', resolve));

  // A plain lock: SET NX PX, compare-and-delete in Lua.
  const key = 'failover:{lock}';
  const mine = crypto.randomBytes(16).toString('hex');
  const theirs = crypto.randomBytes(16).toString('hex');
  check((await a.set(key, mine, 'PX', 60000, 'NX')) === 'OK', 'first SET NX PX');
  check((await b.set(key, theirs, 'PX', 60000, 'NX')) === null, 'second owner refused before the failover');
  ok('ioredis ' + mode + ' acquire');

  let redlock, rl, other;
  if (mode === 'sentinel') {
    // node-redlock over the sentinel-backed client: one instance, so a
    // quorum of one, the group giving the redundancy.
    redlock = new Redlock([a], { retryCount: 0 });
    other = new Redlock([b], { retryCount: 0 });
    rl = await redlock.acquire(['failover:redlock'], 60000);
    check(rl.attempts.length === 1, 'redlock acquired in one attempt');
    let refused = false;
    try {
      await other.acquire(['failover:redlock'], 60000);
    } catch (err) {
      refused = err instanceof ExecutionError;
    }
    check(refused, 'redlock: a second owner refused before the failover');
    ok('redlock acquire');
  }

  console.log('kill');
  await waitLine(); // the test killed the leader
  const killed = Date.now();

  const got = await retry('another owner\'s SET NX after the failover', () => b.set(key, theirs, 'PX', 60000, 'NX'));
  check(got === null, 'another owner acquired a lock held across the failover');
  console.log('info first answer ' + (Date.now() - killed) + ' ms after the kill');
  ok('lock held across the failover');
  check((await retry('GET', () => a.get(key))) === mine, 'the key still holds the owner\'s value');
  check((await retry('extend', () => a.eval(EXTEND, 1, key, mine, 90000))) === 1, 'the owner extends its lock');
  const pttl = await retry('PTTL', () => a.pttl(key));
  check(pttl > 60000 && pttl <= 90000, 'PTTL after extend in (60000,90000]: ' + pttl);
  check((await retry('release', () => a.eval(RELEASE, 1, key, mine))) === 1, 'the owner releases its lock');
  check((await retry('reacquire', () => b.set(key, theirs, 'PX', 60000, 'NX'))) === 'OK', 'the other owner acquires once released');
  ok('owner kept it, released and reacquired');

  if (mode === 'sentinel') {
    // The same client keeps working: redlock's scripts run on the new
    // leader (EVALSHA, EVAL on NOSCRIPT), its lock is still held and still
    // its owner's.
    let refused = false;
    const deadline = Date.now() + 20000;
    while (!refused) {
      try {
        await other.acquire(['failover:redlock'], 60000);
        throw new Error('FAIL redlock: another owner acquired a lock held across the failover');
      } catch (err) {
        if (!(err instanceof ExecutionError)) throw err;
        // Refused by the group, or no answer yet (every attempt failed
        // with a connection error): only a vote against counts.
        const stats = await Promise.all(err.attempts);
        refused = stats.some((s) => s.votesAgainst.size > 0);
        if (!refused && Date.now() > deadline) throw new Error('FAIL redlock: no answer after the failover');
        if (!refused) await sleep(50);
      }
    }
    ok('redlock lock held across the failover');
    rl = await retry('redlock extend', () => rl.extend(60000));
    await retry('redlock release', () => rl.release());
    const next = await retry('redlock reacquire', () => other.acquire(['failover:redlock'], 60000));
    await next.release();
    ok('redlock extend, release and reacquire after the failover');
  }
  a.disconnect();
  b.disconnect();
}

main(process.argv[2], process.argv.slice(3)).then(
  () => process.exit(0),
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  },
);
