// Package compat checks lockredis against the real thing: a differential
// harness that sends the same commands to redis-server and to lockredis and
// compares the raw reply bytes, plus tests that drive both the embedded
// server and the built binary with unmodified clients (go-redis v9,
// redis-cli). It is its own module so that test-only dependencies never
// become requirements of the embeddable module.
package compat
