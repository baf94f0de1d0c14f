package lockredis

import (
	"fmt"
	"slices"
	"sort"
)

// The Check helpers assert what a database holds, for tests:
//
//	srv.CheckGet(t, "user:1", "alice")
//	srv.CheckList(t, "queue", "a", "b")
//
// They report a mismatch with t.Errorf (the test goes on) and read through
// the direct helpers, so SetError does not get in their way.

// CheckGet fails the test unless key holds the string want.
func (d *DB) CheckGet(t TB, key, want string) {
	t.Helper()
	got, err := d.Get(key)
	if err != nil {
		t.Errorf("lockredis: GET %q: %v", key, err)
		return
	}
	if got != want {
		t.Errorf("lockredis: GET %q = %q, want %q", key, got, want)
	}
}

// CheckList fails the test unless key holds a list with exactly want,
// head first.
func (d *DB) CheckList(t TB, key string, want ...string) {
	t.Helper()
	got, err := d.List(key)
	if err != nil {
		t.Errorf("lockredis: list %q: %v", key, err)
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("lockredis: list %q = %q, want %q", key, got, want)
	}
}

// CheckSet fails the test unless key holds a set of exactly the members
// want, in any order.
func (d *DB) CheckSet(t TB, key string, want ...string) {
	t.Helper()
	got, err := d.Members(key)
	if err != nil {
		t.Errorf("lockredis: set %q: %v", key, err)
		return
	}
	want = slices.Clone(want)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("lockredis: set %q = %q, want %q", key, got, want)
	}
}

// CheckHash fails the test unless key holds a hash with exactly the fields
// and values of want.
func (d *DB) CheckHash(t TB, key string, want map[string]string) {
	t.Helper()
	got, err := d.Hash(key)
	if err != nil {
		t.Errorf("lockredis: hash %q: %v", key, err)
		return
	}
	if fmt.Sprint(got) != fmt.Sprint(want) { // fmt prints maps sorted
		t.Errorf("lockredis: hash %q = %v, want %v", key, got, want)
	}
}

// CheckSortedSet fails the test unless key holds a sorted set with exactly
// the members and scores of want.
func (d *DB) CheckSortedSet(t TB, key string, want map[string]float64) {
	t.Helper()
	got, err := d.SortedSet(key)
	if err != nil {
		t.Errorf("lockredis: sorted set %q: %v", key, err)
		return
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lockredis: sorted set %q = %v, want %v", key, got, want)
	}
}

// CheckGet is DB.CheckGet on database 0.
func (s *Server) CheckGet(t TB, key, want string) { t.Helper(); s.DB(0).CheckGet(t, key, want) }

// CheckList is DB.CheckList on database 0.
func (s *Server) CheckList(t TB, key string, want ...string) {
	t.Helper()
	s.DB(0).CheckList(t, key, want...)
}

// CheckSet is DB.CheckSet on database 0.
func (s *Server) CheckSet(t TB, key string, want ...string) {
	t.Helper()
	s.DB(0).CheckSet(t, key, want...)
}

// CheckHash is DB.CheckHash on database 0.
func (s *Server) CheckHash(t TB, key string, want map[string]string) {
	t.Helper()
	s.DB(0).CheckHash(t, key, want)
}

// CheckSortedSet is DB.CheckSortedSet on database 0.
func (s *Server) CheckSortedSet(t TB, key string, want map[string]float64) {
	t.Helper()
	s.DB(0).CheckSortedSet(t, key, want)
}
