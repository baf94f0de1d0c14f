// node-redlock 5 (beta) over ioredis against three lockredis instances.
'use strict';
const Redis = require('ioredis');
const { default: Redlock, ExecutionError } = require('redlock');
const { check, ok, rejects, hostPort, main } = require('./lib');

main(async (addrs) => {
  check(addrs.length === 3, 'want 3 addresses, got ' + addrs.length);
  // ioredis sends INFO as its ready check before any command runs.
  const clients = addrs.map((a) => new Redis({ ...hostPort(a), maxRetriesPerRequest: 1 }));
  await Promise.all(clients.map((c) => new Promise((resolve, reject) => {
    c.once('ready', resolve);
    c.once('error', reject);
  })));
  ok('ioredis ready');
  const all = (fn) => Promise.all(clients.map(fn));
  // Redlock resolves as soon as a quorum answered; a slower instance may
  // still be on its EVAL after EVALSHA's NOSCRIPT. Each attempt's stats
  // settle once every instance answered: wait for them before inspecting.
  const settled = (x) => Promise.all(x.attempts);
  const redlock = new Redlock(clients, { retryCount: 0 });

  const lock = await redlock.acquire(['res'], 5000);
  await settled(lock);
  let values = await all((c) => c.get('res'));
  check(values.every((v) => v === lock.value), 'every instance holds the lock value: ' + values);
  let ttls = await all((c) => c.pttl('res'));
  check(ttls.every((t) => t > 0 && t <= 5000), 'every instance has PTTL in (0,5000]: ' + ttls);
  ok('acquire');

  const err = await rejects(redlock.acquire(['res'], 5000), 'second acquire of a held lock');
  check(err instanceof ExecutionError, 'second acquire fails with ExecutionError: ' + err);
  await settled(err);
  values = await all((c) => c.get('res'));
  check(values.every((v) => v === lock.value), 'refused acquire left the holder in place: ' + values);
  ok('second acquire refused');

  const extended = await lock.extend(20000);
  await settled(extended);
  check(extended.value === lock.value, 'extend keeps the lock value');
  ttls = await all((c) => c.pttl('res'));
  check(ttls.every((t) => t > 5000 && t <= 20000), 'extend raised PTTL above 5000 on every instance: ' + ttls);
  ok('extend');

  // A foreign value (another owner) must make release leave that key alone.
  await clients[0].set('res', 'someone-else');
  await settled(await extended.release());
  values = await all((c) => c.get('res'));
  check(values[0] === 'someone-else' && values[1] === null && values[2] === null,
    'release deletes only our own value: ' + values);
  await clients[0].del('res');
  const again = await redlock.acquire(['res'], 5000);
  await settled(again);
  await settled(await again.release());
  ok('release');

  // Quorum: one instance held by someone else still gives a majority (2 of 3),
  // two do not.
  await clients[0].set('q', 'other', 'PX', 10000);
  const majority = await redlock.acquire(['q'], 5000);
  await settled(majority);
  check((await clients[1].get('q')) === majority.value, 'majority lock is on instance 1');
  check((await clients[0].get('q')) === 'other', 'instance 0 keeps the other owner');
  await settled(await majority.release());
  await clients[1].set('q', 'other', 'PX', 10000);
  const minority = await rejects(redlock.acquire(['q'], 5000), 'acquire with 2 of 3 instances held elsewhere');
  check(minority instanceof ExecutionError, 'minority acquire fails with ExecutionError: ' + minority);
  await settled(minority);
  // The undo (release) is not exposed, but its EVALSHA hits a cached script
  // and goes out on the same connection before this GET.
  check((await clients[2].get('q')) === null, 'a failed acquire undoes its vote on instance 2');
  ok('quorum');

  // Multi-resource lock: all keys or none.
  const multi = await redlock.acquire(['a', 'b'], 5000);
  await settled(multi);
  for (const c of clients) {
    check((await c.get('a')) === multi.value && (await c.get('b')) === multi.value, 'multi-resource lock holds both keys');
  }
  await settled(await multi.release());
  ok('multi-resource');

  await all((c) => c.quit());
});
