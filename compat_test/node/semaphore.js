// redis-semaphore Mutex and Semaphore over ioredis against one lockredis.
'use strict';
const Redis = require('ioredis');
const { Mutex, Semaphore } = require('redis-semaphore');
const { check, ok, sleep, hostPort, main } = require('./lib');

main(async (addrs) => {
  const opts = { ...hostPort(addrs[0]), maxRetriesPerRequest: 1 };
  const a = new Redis(opts);
  const b = new Redis(opts);
  // No automatic refresh unless a check asks for it; a failed tryAcquire
  // gives up after one attempt.
  const quick = { lockTimeout: 5000, acquireAttemptsLimit: 1, refreshInterval: 0 };

  const m1 = new Mutex(a, 'm', quick);
  await m1.acquire();
  check((await a.get('mutex:m')) === m1.identifier, 'mutex key holds the holder identifier');
  const m2 = new Mutex(b, 'm', quick);
  check((await m2.tryAcquire()) === false, 'second mutex holder refused');
  // A non-holder that claims the lock under another identifier: its refresh
  // (GET + PEXPIRE script) and its release (GET + DEL script) must not touch m1's.
  const intruder = new Mutex(b, 'm', { ...quick, identifier: 'intruder', acquiredExternally: true });
  check((await intruder.tryAcquire()) === false, 'refresh by a non-holder fails');
  await intruder.release();
  check((await a.get('mutex:m')) === m1.identifier, 'release by a non-holder leaves the lock');
  const ttl = await a.pttl('mutex:m');
  check(ttl > 0 && ttl <= 5000, 'the lock keeps its TTL: ' + ttl);
  await m1.release();
  check((await a.exists('mutex:m')) === 0, 'release deletes the mutex key');
  check((await m2.tryAcquire()) === true, 'mutex free again after release');
  await m2.release();
  ok('mutex exclusion and release');

  const short = new Mutex(a, 'exp', { ...quick, lockTimeout: 100 });
  await short.acquire();
  const pttl = await a.pttl('mutex:exp');
  check(pttl > 0 && pttl <= 100, 'mutex PX 100 gives PTTL in (0,100]: ' + pttl);
  await sleep(150);
  const next = new Mutex(b, 'exp', quick);
  check((await next.tryAcquire()) === true, 'expired mutex can be taken by another');
  await next.release();
  short.stopRefresh();
  ok('mutex expiry');

  // The holder's refresh (GET + PEXPIRE in Lua) keeps the lock past lockTimeout.
  const kept = new Mutex(a, 'refresh', { lockTimeout: 1000, refreshInterval: 100, acquireAttemptsLimit: 1 });
  await kept.acquire();
  await sleep(1300);
  const rival = new Mutex(b, 'refresh', quick);
  check((await rival.tryAcquire()) === false, 'refreshed mutex still held after 1.5 x lockTimeout');
  check(kept.isAcquired, 'holder still believes it holds the lock');
  await kept.release();
  ok('mutex refresh');

  // Semaphore: 8 concurrent acquirers, limit 3.
  const limit = 3;
  let active = 0;
  let maxActive = 0;
  let done = 0;
  const clients = [];
  const worker = async (i) => {
    const c = new Redis(opts);
    clients.push(c);
    const s = new Semaphore(c, 'sem', limit, { lockTimeout: 5000, acquireTimeout: 10000, retryInterval: 5, refreshInterval: 0 });
    for (let round = 0; round < 3; round++) {
      await s.acquire();
      active++;
      maxActive = Math.max(maxActive, active);
      const card = await c.zcard('semaphore:sem');
      check(card <= limit, 'semaphore zset never holds more than the limit: ' + card);
      await sleep(10);
      active--;
      await s.release();
    }
    done++;
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => worker(i)));
  check(done === 8, 'every semaphore acquirer finished');
  check(maxActive === limit, 'semaphore admitted exactly up to its limit at once: ' + maxActive);
  check((await a.zcard('semaphore:sem')) === 0, 'all permits released');
  ok('semaphore limit');

  // A permit held past its lockTimeout is reclaimed (ZREMRANGEBYSCORE by time).
  const full = [];
  for (let i = 0; i < limit; i++) {
    const s = new Semaphore(a, 'sem2', limit, { lockTimeout: 100, acquireAttemptsLimit: 1, refreshInterval: 0 });
    check((await s.tryAcquire()) === true, 'permit ' + i + ' granted');
    full.push(s);
  }
  const extra = new Semaphore(b, 'sem2', limit, { lockTimeout: 5000, acquireAttemptsLimit: 1, refreshInterval: 0 });
  check((await extra.tryAcquire()) === false, 'no permit beyond the limit');
  await sleep(150);
  check((await extra.tryAcquire()) === true, 'stale permits reclaimed after their lockTimeout');
  await extra.release();
  ok('semaphore expiry');

  await Promise.all([a, b, ...clients].map((c) => c.quit()));
});
