// node-redis (the `redis` package, v4: RESP2, no HELLO) doing the classic
// single-instance lock: SET NX PX, and Lua compare-and-delete to release.
'use strict';
const { createClient } = require('redis');
const { check, ok, sleep, main } = require('./lib');

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

main(async (addrs) => {
  const url = 'redis://' + addrs[0];
  const clients = [];
  const connect = async () => {
    const c = createClient({ url });
    c.on('error', (err) => console.error('client error:', err.message));
    await c.connect();
    clients.push(c);
    return c;
  };
  const a = await connect();
  const b = await connect();

  check((await a.set('lock', 'tok-a', { NX: true, PX: 5000 })) === 'OK', 'first SET NX PX acquires');
  check((await b.set('lock', 'tok-b', { NX: true, PX: 5000 })) === null, 'second SET NX PX refused (nil)');
  const pttl = await a.pTTL('lock');
  check(pttl > 0 && pttl <= 5000, 'PTTL in (0,5000]: ' + pttl);
  check((await b.eval(RELEASE, { keys: ['lock'], arguments: ['tok-b'] })) === 0, 'compare-and-delete by a non-owner returns 0');
  check((await a.get('lock')) === 'tok-a', 'non-owner release left the lock');
  check((await a.eval(RELEASE, { keys: ['lock'], arguments: ['tok-a'] })) === 1, 'owner release returns 1');
  check((await b.set('lock', 'tok-b', { NX: true, PX: 5000 })) === 'OK', 'free again after release');
  // EVALSHA path (scripts cached by EVAL).
  const sha = await a.scriptLoad(RELEASE);
  check((await a.evalSha(sha, { keys: ['lock'], arguments: ['tok-b'] })) === 1, 'EVALSHA release by owner');
  ok('set nx px and compare-and-delete');

  check((await a.set('short', 'x', { NX: true, PX: 50 })) === 'OK', 'short lock acquired');
  await sleep(100);
  check((await b.set('short', 'y', { NX: true, PX: 5000 })) === 'OK', 'expired lock taken by another');
  ok('expiry');

  // Exclusion: workers on separate connections spin on SET NX PX; a critical
  // section spans several round trips and must never overlap another.
  const workers = await Promise.all(Array.from({ length: 5 }, connect));
  let inside = 0;
  let entries = 0;
  await Promise.all(workers.map(async (c, i) => {
    for (let round = 0; round < 5; round++) {
      const token = `w${i}-${round}`;
      while ((await c.set('mutex', token, { NX: true, PX: 5000 })) !== 'OK') await sleep(1);
      inside++;
      entries++;
      check(inside === 1, 'two holders inside the critical section');
      check((await c.get('mutex')) === token, 'the lock holds our token');
      await c.incr('counter');
      inside--;
      check((await c.eval(RELEASE, { keys: ['mutex'], arguments: [token] })) === 1, 'release by the holder');
    }
  }));
  check(entries === 25 && (await a.get('counter')) === '25', 'all 25 critical sections ran');
  ok('exclusion');

  await Promise.all(clients.map((c) => c.quit()));
});
