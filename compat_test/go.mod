module github.com/lockredis/lockredis/compat_test

go 1.26.0

require (
	github.com/MaricoHan/redisson v1.0.1
	github.com/alicebob/miniredis/v2 v2.40.0
	github.com/anishathalye/porcupine v1.3.1
	github.com/bsm/redislock v0.9.4
	github.com/cheerego/go-redisson v0.0.6
	github.com/go-redis/redis/v8 v8.11.5
	github.com/go-redsync/redsync/v4 v4.13.0
	github.com/gomodule/redigo v1.9.2
	github.com/lockredis/lockredis v0.0.0
	github.com/panjf2000/gnet/v2 v2.9.7
	github.com/prometheus/client_model v0.6.3
	github.com/prometheus/common v0.72.0
	github.com/redis/go-redis/v9 v9.17.2
	github.com/redis/rueidis v1.0.69
	github.com/tidwall/buntdb v1.3.2
	github.com/tidwall/redcon v1.6.2
	github.com/zeebo/xxh3 v1.1.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/hashicorp/errwrap v1.1.0 // indirect
	github.com/hashicorp/go-multierror v1.1.1 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/orcaman/concurrent-map v1.0.0 // indirect
	github.com/panjf2000/ants/v2 v2.11.3 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/redis/rueidis/rueidiscompat v1.0.69 // indirect
	github.com/satori/go.uuid v1.2.0 // indirect
	github.com/segmentio/ksuid v1.0.4 // indirect
	github.com/tidwall/btree v1.4.2 // indirect
	github.com/tidwall/gjson v1.14.3 // indirect
	github.com/tidwall/grect v0.1.4 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/tidwall/rtred v0.1.2 // indirect
	github.com/tidwall/tinyqueue v0.1.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/yuin/gopher-lua v1.1.2 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.0 // indirect
	golang.org/x/sync v0.11.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	gopkg.in/natefinch/lumberjack.v2 v2.2.1 // indirect
)

replace github.com/lockredis/lockredis => ../
