// The Node recipes of docs/locks.md: each region between a "snippet:" line
// and "end snippet" is shown on the page, and the root module's
// TestDocSnippets checks that page and file agree. Run by
// ../cookbook_test.go with a lockredis address; prints "ok <check>" for
// every lock property verified and exits 1 at the first violation.
'use strict';
const Redis = require('ioredis');
const { default: Redlock, ExecutionError } = require('redlock');
const { Mutex, Semaphore } = require('redis-semaphore');
const { check, ok, sleep, rejects, hostPort, main } = require('./lib');

// lockInfo is LOCK.INFO's RESP2 array of pairs as an object.
async function lockInfo(client, key) {
  const pairs = await client.call('LOCK.INFO', key);
  const info = {};
  for (let i = 0; i < pairs.length; i += 2) info[pairs[i]] = pairs[i + 1];
  return info;
}

main(async ([addr]) => {
  const { host, port } = hostPort(addr);
  // snippet: node-redlock
  const client = new Redis({ host, port }); // lockredis's address
  const redlock = new Redlock([client], { retryCount: 0 });

  const a = await redlock.acquire(['lock:report'], 200);
  // The lock's fencing token, sent with every write to the resource.
  const tokenA = await client.call('LOCK.TOKEN', 'lock:report');
  check(await client.call('LOCK.CHECK', 'lock:report', tokenA) === 1, 'a holds the lock');
  const refused = await rejects(redlock.acquire(['lock:report'], 200), 'a second holder');
  check(refused instanceof ExecutionError, 'a second holder is refused');

  await sleep(300); // a stalls past its 200 ms lease; b takes the lock
  const b = await redlock.acquire(['lock:report'], 10000);
  const tokenB = await client.call('LOCK.TOKEN', 'lock:report');
  check(tokenB > tokenA, 'tokens only grow');
  // The resource asks lockredis whether a's token still holds the lock.
  check(await client.call('LOCK.CHECK', 'lock:report', tokenA) === 0, "a's token is stale");
  await b.release();
  // end snippet
  ok('redlock with fencing tokens');

  const other = new Redis({ host, port });
  await client.call('LOCK.ACQUIRE', 'lock:job', 'worker-1', 10000);
  // snippet: node-wait
  // worker-2 queues for the lock worker-1 holds, for up to 2 s; ioredis
  // has no read timeout by default. A nil reply (null) means not granted.
  const waiting = other.call('LOCK.ACQUIRE', 'lock:job', 'worker-2', 10000, 'WAIT', 2000);
  while ((await client.call('LOCK.INFO', 'lock:job'))[9] !== 1) {} // "waiters" (RESP2)
  // worker-1's release hands the lock to worker-2 in the same step.
  check(await client.call('LOCK.RELEASE', 'lock:job', 'worker-1') === 1, 'worker-1 released');
  const token = await waiting;
  check(token !== null && (await client.get('lock:job')) === 'worker-2', 'worker-2 granted');
  // end snippet
  check(token > tokenB, 'a newer token for worker-2');
  ok('wait and hand-over');

  // What LOCK.INFO says of the locks Node clients leave (docs/locks.md's
  // table): node-redlock and redis-semaphore's Mutex leave a string
  // holding the owner, redis-semaphore's Semaphore a sorted set of holder
  // ids scored by acquire time.
  const lock = await redlock.acquire(['layout:redlock'], 10000);
  let info = await lockInfo(client, 'layout:redlock');
  check(info.kind === 'string' && info.owners.length === 1 && info.owners[0] === lock.value, 'redlock: ' + JSON.stringify(info));
  const mutex = new Mutex(client, 'layout', { lockTimeout: 10000, refreshInterval: 0 });
  await mutex.acquire();
  info = await lockInfo(client, 'mutex:layout');
  check(info.kind === 'string' && info.owners[0] === mutex.identifier && info.ttl > 0, 'redis-semaphore Mutex: ' + JSON.stringify(info));
  const sem = new Semaphore(client, 'layout', 3, { lockTimeout: 10000, refreshInterval: 0 });
  await sem.acquire();
  info = await lockInfo(client, 'semaphore:layout');
  check(info.kind === 'semaphore' && info.owners.length === 1 && info.owners[0] === sem.identifier, 'redis-semaphore Semaphore: ' + JSON.stringify(info));
  check(typeof info.acquired_at === 'number' && info.reentries === null, 'Semaphore acquired_at: ' + JSON.stringify(info));
  ok('lock.info layouts');
  client.disconnect();
  other.disconnect();
});
