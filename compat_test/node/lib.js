// Shared by the client scripts that ../node_test.go runs. Each script gets
// the lockredis addresses ("host:port") as arguments, prints "ok <check>"
// for every lock property it verified, and exits 1 at the first violation.
'use strict';

function check(cond, what) {
  if (!cond) throw new Error('FAIL ' + what);
}

function ok(name) {
  console.log('ok ' + name);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// rejects resolves to the error p rejects with, and fails if p resolves.
async function rejects(p, what) {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('FAIL ' + what + ': resolved, want a rejection');
}

function hostPort(addr) {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

// main runs fn(addrs) and sets the exit status; a hung client is caught by
// the Go test's timeout.
function main(fn) {
  fn(process.argv.slice(2)).then(
    () => process.exit(0),
    (err) => {
      console.error(err && err.stack ? err.stack : String(err));
      process.exit(1);
    },
  );
}

module.exports = { check, ok, sleep, rejects, hostPort, main };
