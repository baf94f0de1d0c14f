package compat

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lockredis/lockredis/luasvc"
)

// TestNativeScriptsAreTheClientsScripts checks that the scripts lockredis
// runs as Go (luasvc/native.go) are byte for byte the ones the pinned
// clients send: read from the clients' own sources (the Go modules in
// go.mod, redis-py's lock.py), hashed like SCRIPT LOAD. A client release
// that changes a script only loses the native path (it runs in Lua), but
// this test then says so.
func TestNativeScriptsAreTheClientsScripts(t *testing.T) {
	native := luasvc.NativeScripts()
	want := map[string][]string{ // module -> file, then the scripts' variable names or call lines
		"github.com/go-redsync/redsync/v4": {"mutex.go", "deleteScript", "touchScript", "touchWithSetNXScript"},
		"github.com/bsm/redislock":         {"redislock.go", "luaRefresh", "luaRelease", "luaPTTL"},
		"github.com/cheerego/go-redisson":  {"rlock.go", "", "", ""}, // the three Eval literals of RLock
	}
	for mod, spec := range want {
		dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", mod, err)
		}
		lits := scriptLiterals(t, filepath.Join(strings.TrimSpace(string(dir)), spec[0]))
		for _, name := range spec[1:] {
			if name == "" {
				continue
			}
			src, ok := lits[name]
			if !ok {
				t.Errorf("%s: no script %s", mod, name)
				continue
			}
			if _, ok := native[sha1hex(src)]; !ok {
				t.Errorf("%s %s is not native (changed upstream?):\n%s", mod, name, src)
			}
		}
		if mod == "github.com/cheerego/go-redisson" {
			n := 0
			for _, src := range lits {
				if _, ok := native[sha1hex(src)]; ok {
					n++
				}
			}
			if n != 3 {
				t.Errorf("go-redisson: %d of RLock's acquire/unlock/renew scripts are native, want 3", n)
			}
		}
	}
	py := requireRedisPy(t)
	for _, name := range []string{"LUA_RELEASE_SCRIPT", "LUA_REACQUIRE_SCRIPT"} {
		out, err := exec.Command(py, "-c", "import sys, redis.lock; sys.stdout.write(redis.lock.Lock."+name+")").Output()
		if err != nil {
			t.Fatalf("redis-py %s: %v", name, err)
		}
		if _, ok := native[sha1hex(string(out))]; !ok {
			t.Errorf("redis-py %s is not native:\n%s", name, out)
		}
	}
	// The differential tests' copies run native too, so they compare the
	// native bodies with redis-server.
	for name, src := range map[string]string{"redsyncDelete": redsyncDelete, "redsyncTouch": redsyncTouch,
		"redsyncTouchSetNX": redsyncTouchSetNX, "simpleDelete": simpleDelete, "bsm094Release": bsm094Release,
		"bsm094Refresh": bsm094Refresh, "bsm094PTTL": bsm094PTTL} {
		if _, ok := native[sha1hex(src)]; !ok {
			t.Errorf("%s is not native", name)
		}
	}
}

// scriptLiterals returns the string literals of a Go file that hold Lua
// calling redis.call: by the variable they initialise, or by their text
// when they are call arguments.
func scriptLiterals(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(gotoken.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ValueSpec:
			for i, v := range x.Values {
				if s := firstScript(v); s != "" {
					out[x.Names[i].Name] = s
				}
			}
			return false
		case *ast.CallExpr:
			for _, a := range x.Args {
				if s := literal(a); strings.Contains(s, "redis.call") {
					out[s] = s
				}
			}
		}
		return true
	})
	return out
}

func firstScript(e ast.Expr) string {
	var found string
	ast.Inspect(e, func(n ast.Node) bool {
		if s := literal(n); found == "" && strings.Contains(s, "redis.call") {
			found = s
		}
		return found == ""
	})
	return found
}

func literal(n ast.Node) string {
	b, ok := n.(*ast.BasicLit)
	if !ok || b.Kind != gotoken.STRING {
		return ""
	}
	s, err := strconv.Unquote(b.Value)
	if err != nil {
		return ""
	}
	return s
}
