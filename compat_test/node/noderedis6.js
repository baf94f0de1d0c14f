// node-redis 6 (npm alias redis6 = redis@6, RESP3 by default: HELLO 3 on
// connect, RESP2 only if the server refuses) doing the single-instance lock:
// SET NX PX, owner-only release in Lua, expiry, and a waiter that stays
// subscribed to the unlock channel and keeps running commands on that same
// connection, which only RESP3 allows.
'use strict';
const { createClient } = require('redis6');
const { check, ok, sleep, main } = require('./lib');

// The release publishes on the unlock channel, as Redisson-style locks do.
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then
  redis.call("publish", KEYS[2], "unlocked")
  return redis.call("del", KEYS[1])
else
  return 0
end`;

main(async (addrs) => {
  const url = 'redis://' + addrs[0];
  const clients = [];
  const connect = async () => {
    const c = createClient({ url }); // no RESP option: the default, 3
    c.on('error', (err) => console.error('client error:', err.message));
    await c.connect();
    clients.push(c);
    return c;
  };
  const a = await connect();
  const b = await connect();

  // The client would fall back to RESP2 silently: ask the server.
  const info = String(await a.sendCommand(['CLIENT', 'INFO']));
  check(/(^| )resp=3(\s|$)/.test(info), 'CLIENT INFO says resp=3: ' + info);
  const hello = await b.sendCommand(['HELLO', '3']);
  check(hello && !Array.isArray(hello) && hello.proto === 3, 'HELLO 3 answers a map with proto 3: ' + JSON.stringify(hello));
  await a.hSet('h', { f: 'v' });
  const all = await a.hGetAll('h');
  check(!Array.isArray(all) && all.f === 'v', 'HGETALL is a map: ' + JSON.stringify(all));
  ok('resp3');

  const release = (c, key, token) => c.eval(RELEASE, { keys: [key, 'unlock:' + key], arguments: [token] });
  check((await a.set('lock', 'tok-a', { NX: true, PX: 5000 })) === 'OK', 'first SET NX PX acquires');
  check((await b.set('lock', 'tok-b', { NX: true, PX: 5000 })) === null, 'second SET NX PX refused (null)');
  const pttl = await a.pTTL('lock');
  check(pttl > 0 && pttl <= 5000, 'PTTL in (0,5000]: ' + pttl);
  check((await release(b, 'lock', 'tok-b')) === 0, 'release by a non-owner returns 0');
  check((await a.get('lock')) === 'tok-a', 'non-owner release left the lock');
  check((await release(a, 'lock', 'tok-a')) === 1, 'owner release returns 1');
  check((await a.exists('lock')) === 0, 'owner release deleted the lock');
  check((await b.set('lock', 'tok-b', { NX: true, PX: 5000 })) === 'OK', 'free again after release');
  check((await release(b, 'lock', 'tok-b')) === 1, 'second owner releases');
  ok('set nx px and owner-only release');

  check((await a.set('short', 'x', { NX: true, PX: 50 })) === 'OK', 'short lock acquired');
  check((await b.set('short', 'y', { NX: true, PX: 5000 })) === null, 'short lock held before it expires');
  await sleep(100);
  check((await b.set('short', 'y', { NX: true, PX: 5000 })) === 'OK', 'expired lock taken by another');
  ok('expiry');

  // The waiter subscribes, then on the same connection tries the lock,
  // fails, and waits for the unlock message; the holder's release wakes it
  // and it takes the lock, still on that connection, still subscribed.
  const waiter = await connect();
  check((await a.set('res', 'holder', { NX: true, PX: 10000 })) === 'OK', 'holder acquires');
  const messages = [];
  let wake;
  const woken = new Promise((resolve) => { wake = resolve; });
  await waiter.subscribe('unlock:res', (message, channel) => {
    messages.push(channel + ' ' + message);
    wake();
  });
  check((await waiter.set('res', 'waiter', { NX: true, PX: 10000 })) === null, 'subscribed waiter refused while held');
  check((await waiter.get('res')) === 'holder', 'subscribed waiter reads the holder token');
  check((await waiter.ping()) === 'PONG', 'PING while subscribed answers PONG (RESP3)');
  check((await a.pubSubNumSub('unlock:res'))['unlock:res'] === 1, 'one subscriber on the unlock channel');
  check((await release(a, 'res', 'holder')) === 1, 'holder releases and publishes');
  await Promise.race([woken, sleep(5000).then(() => { throw new Error('FAIL no unlock message within 5s'); })]);
  check(messages.length === 1 && messages[0] === 'unlock:res unlocked', 'one unlock message: ' + JSON.stringify(messages));
  check((await waiter.set('res', 'waiter', { NX: true, PX: 10000 })) === 'OK', 'woken waiter acquires on the subscribed connection');
  check((await release(waiter, 'res', 'waiter')) === 1, 'waiter releases (and gets its own unlock message)');
  await waiter.unsubscribe('unlock:res');
  check((await waiter.get('res')) === null, 'lock free at the end');
  ok('subscriber woken by unlock');

  // Exclusion: workers spin on SET NX PX; a critical section spans several
  // round trips and must never overlap another.
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
      check((await release(c, 'mutex', token)) === 1, 'release by the holder');
    }
  }));
  check(entries === 25 && (await a.get('counter')) === '25', 'all 25 critical sections ran');
  ok('exclusion');

  await Promise.all(clients.map((c) => c.quit()));
});
