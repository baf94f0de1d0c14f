package lockredis

import (
	"testing"
	"time"
)

// TestSubscribe: a Subscription gets keyspace events and PUBLISH's
// messages in order, counts as a receiver, and stops at Close.
func TestSubscribe(t *testing.T) {
	srv := RunT(t)
	srv.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	sub := srv.Subscribe("__keyevent@0__:*", "news")
	if r := srv.Do("PUBLISH", "news", "hello"); r.Int != 1 {
		t.Fatalf("PUBLISH counted %d receivers, want 1", r.Int)
	}
	srv.Do("SET", "k", "v", "PX", "1000")
	srv.Do("DEL", "k")
	srv.Do("SET", "j", "v", "PX", "1000")
	srv.FastForward(2 * time.Second)
	want := []Message{
		{"news", "news", "hello"},
		{"__keyevent@0__:*", "__keyevent@0__:set", "k"},
		{"__keyevent@0__:*", "__keyevent@0__:expire", "k"},
		{"__keyevent@0__:*", "__keyevent@0__:del", "k"},
		{"__keyevent@0__:*", "__keyevent@0__:set", "j"},
		{"__keyevent@0__:*", "__keyevent@0__:expire", "j"},
		{"__keyevent@0__:*", "__keyevent@0__:expired", "j"},
	}
	for i, w := range want {
		select {
		case m := <-sub.C:
			if m != w {
				t.Errorf("message %d: %+v, want %+v", i, m, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("message %d (%+v) never came", i, w)
		}
	}
	sub.Close()
	sub.Close()
	if _, ok := <-sub.C; ok {
		t.Error("C still open after Close")
	}
	if r := srv.Do("PUBLISH", "news", "again"); r.Int != 0 {
		t.Errorf("PUBLISH after Close counted %d receivers", r.Int)
	}
}
