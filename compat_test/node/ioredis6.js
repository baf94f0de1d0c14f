// ioredis 6 (npm alias ioredis6 = ioredis@6: protocol 3 by default, HELLO 3
// on connect, RESP2 only if the server refuses), with replyMapping "resp3"
// so that maps and doubles reach JavaScript as RESP3 types. The lock: SET
// NX PX, owner-only release in Lua (defineCommand, EVALSHA), expiry, and a
// waiter subscribed to the unlock channel that keeps running commands on
// that same connection, which only RESP3 allows.
'use strict';
const Redis = require('ioredis6');
const { check, ok, sleep, hostPort, main } = require('./lib');

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then
  redis.call("publish", KEYS[2], "unlocked")
  return redis.call("del", KEYS[1])
else
  return 0
end`;

main(async (addrs) => {
  const { host, port } = hostPort(addrs[0]);
  const clients = [];
  const connect = async () => {
    const c = new Redis({ host, port, replyMapping: 'resp3', lazyConnect: true, maxRetriesPerRequest: 0 });
    c.on('error', (err) => console.error('client error:', err.message));
    c.defineCommand('release', { numberOfKeys: 2, lua: RELEASE });
    await c.connect();
    clients.push(c);
    return c;
  };
  const a = await connect();
  const b = await connect();

  // ioredis would downgrade to RESP2 silently: ask the server, and look at
  // the types only a RESP3 reply can give.
  const info = await a.client('INFO');
  check(/(^| )resp=3(\s|$)/.test(String(info)), 'CLIENT INFO says resp=3: ' + info);
  const cfg = await a.config('GET', 'maxmemory');
  check(!Array.isArray(cfg) && cfg.maxmemory === '0', 'CONFIG GET is a map: ' + JSON.stringify(cfg));
  await a.zadd('z', '1.5', 'm');
  const score = await a.zscore('z', 'm');
  check(score === 1.5, 'ZSCORE is a double (1.5, a number): ' + JSON.stringify(score));
  ok('resp3');

  const release = (c, key, token) => c.release(key, 'unlock:' + key, token);
  check((await a.set('lock', 'tok-a', 'PX', 5000, 'NX')) === 'OK', 'first SET NX PX acquires');
  check((await b.set('lock', 'tok-b', 'PX', 5000, 'NX')) === null, 'second SET NX PX refused (null)');
  const pttl = await a.pttl('lock');
  check(pttl > 0 && pttl <= 5000, 'PTTL in (0,5000]: ' + pttl);
  check((await release(b, 'lock', 'tok-b')) === 0, 'release by a non-owner returns 0');
  check((await a.get('lock')) === 'tok-a', 'non-owner release left the lock');
  check((await release(a, 'lock', 'tok-a')) === 1, 'owner release returns 1');
  check((await a.exists('lock')) === 0, 'owner release deleted the lock');
  check((await b.set('lock', 'tok-b', 'PX', 5000, 'NX')) === 'OK', 'free again after release');
  check((await release(b, 'lock', 'tok-b')) === 1, 'second owner releases');
  ok('set nx px and owner-only release');

  check((await a.set('short', 'x', 'PX', 50, 'NX')) === 'OK', 'short lock acquired');
  check((await b.set('short', 'y', 'PX', 5000, 'NX')) === null, 'short lock held before it expires');
  await sleep(100);
  check((await b.set('short', 'y', 'PX', 5000, 'NX')) === 'OK', 'expired lock taken by another');
  ok('expiry');

  const waiter = await connect();
  check((await a.set('res', 'holder', 'PX', 10000, 'NX')) === 'OK', 'holder acquires');
  const messages = [];
  let wake;
  const woken = new Promise((resolve) => { wake = resolve; });
  waiter.on('message', (channel, message) => {
    messages.push(channel + ' ' + message);
    wake();
  });
  check((await waiter.subscribe('unlock:res')) === 1, 'subscribed to one channel');
  check((await waiter.set('res', 'waiter', 'PX', 10000, 'NX')) === null, 'subscribed waiter refused while held');
  check((await waiter.get('res')) === 'holder', 'subscribed waiter reads the holder token');
  check((await waiter.ping()) === 'PONG', 'PING while subscribed answers PONG (RESP3)');
  check((await release(a, 'res', 'holder')) === 1, 'holder releases and publishes');
  await Promise.race([woken, sleep(5000).then(() => { throw new Error('FAIL no unlock message within 5s'); })]);
  check(messages.length === 1 && messages[0] === 'unlock:res unlocked', 'one unlock message: ' + JSON.stringify(messages));
  check((await waiter.set('res', 'waiter', 'PX', 10000, 'NX')) === 'OK', 'woken waiter acquires on the subscribed connection');
  check((await release(waiter, 'res', 'waiter')) === 1, 'waiter releases (and gets its own unlock message)');
  await waiter.unsubscribe('unlock:res');
  check((await waiter.get('res')) === null, 'lock free at the end');
  ok('subscriber woken by unlock');

  const workers = await Promise.all(Array.from({ length: 5 }, connect));
  let inside = 0;
  let entries = 0;
  await Promise.all(workers.map(async (c, i) => {
    for (let round = 0; round < 5; round++) {
      const token = `w${i}-${round}`;
      while ((await c.set('mutex', token, 'PX', 5000, 'NX')) !== 'OK') await sleep(1);
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
