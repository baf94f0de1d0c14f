// Command gencommands refreshes command spec files (engine/cmd_*.json,
// one per file that registers commands, and luasvc's and pubsub's
// commands.json) from a running redis-server (the reference, 7.0): for
// every command already in a file it is given, and every name given with
// -add (into the file -to names), it asks COMMAND INFO and COMMAND DOCS
// and rewrites the structural fields (arity, flags, key specs, ACL
// categories, tips, group, since, complexity, history, arguments). The
// summary and the lockredis_flags are ours and stay as they are; so does
// an entry the server does not know (a command newer than the server,
// written by hand).
//
//	cd compat_test && go run ./gencommands -addr 127.0.0.1:PORT ../engine/*.json ../luasvc/commands.json ../pubsub/commands.json
//	cd compat_test && go run ./gencommands -addr 127.0.0.1:PORT -to ../engine/cmd_string.json -add getex
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/lockredis/lockredis/engine"
)

type addList []string

func (a *addList) String() string     { return strings.Join(*a, ",") }
func (a *addList) Set(s string) error { *a = append(*a, strings.ToLower(s)); return nil }

func main() {
	addr := flag.String("addr", "", "redis-server address, host:port")
	to := flag.String("to", "", "the spec file -add writes to (refreshed too)")
	var add addList
	flag.Var(&add, "add", "a command (\"get\", \"client|setname\") to add; repeatable")
	flag.Parse()
	if *addr == "" {
		log.Fatal("gencommands: -addr is required")
	}
	if len(add) > 0 && *to == "" {
		log.Fatal("gencommands: -add needs -to, the spec file beside the command's registration")
	}
	files := flag.Args()
	if *to != "" {
		files = append(files, *to)
	}
	if len(files) == 0 {
		log.Fatal("gencommands: no spec file given")
	}

	conn, err := net.Dial("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	c := &client{w: conn, r: bufio.NewReader(conn)}
	if _, err := c.do("HELLO", "3"); err != nil {
		log.Fatalf("gencommands: HELLO 3: %v", err)
	}

	for _, path := range files {
		var extra []string
		if path == *to {
			extra = add
		}
		refresh(c, path, extra)
	}
}

// refresh rewrites one spec file, adding the entries named by add.
func refresh(c *client, path string, add []string) {
	specs := map[string]*engine.SpecData{}
	if old, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(old, &specs); err != nil {
			log.Fatalf("gencommands: %s: %v", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		log.Fatal(err)
	}
	for _, name := range add {
		if specs[name] == nil {
			specs[name] = &engine.SpecData{}
		}
	}
	for name, spec := range specs {
		info, err := c.do("COMMAND", "INFO", name)
		if err != nil {
			log.Fatal(err)
		}
		if info.([]any)[0] == nil {
			log.Printf("gencommands: %s: unknown to the server, kept as written", name)
			continue
		}
		docs, err := c.do("COMMAND", "DOCS", name)
		if err != nil {
			log.Fatal(err)
		}
		fillInfo(spec, info.([]any)[0].([]any))
		fillDocs(spec, lookup(docs, name))
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(specs); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// fillInfo copies COMMAND INFO's fields: name, arity, flags, first key,
// last key, step, ACL categories, tips, key specs, subcommands (ignored:
// each subcommand is an entry of its own).
func fillInfo(s *engine.SpecData, info []any) {
	s.Arity = int(info[1].(int64))
	s.RedisFlags = strs(info[2])
	s.FirstKey, s.LastKey, s.Step = int(info[3].(int64)), int(info[4].(int64)), int(info[5].(int64))
	s.ACLCategories = strs(info[6])
	s.Tips = strs(info[7])
	s.KeySpecs = nil
	for _, ks := range info[8].([]any) {
		s.KeySpecs = append(s.KeySpecs, keySpec(ks.([]pair)))
	}
}

func keySpec(m []pair) engine.KeySpec {
	var ks engine.KeySpec
	if v := lookup(m, "notes"); v != nil {
		ks.Notes = v.(string)
	}
	ks.Flags = strs(lookup(m, "flags"))
	bs := lookup(m, "begin_search")
	ks.BeginSearch.Type = lookup(bs, "type").(string)
	spec := lookup(bs, "spec")
	ks.BeginSearch.Index = num(lookup(spec, "index"))
	if v := lookup(spec, "keyword"); v != nil {
		ks.BeginSearch.Keyword = v.(string)
	}
	ks.BeginSearch.StartFrom = num(lookup(spec, "startfrom"))
	fk := lookup(m, "find_keys")
	ks.FindKeys.Type = lookup(fk, "type").(string)
	spec = lookup(fk, "spec")
	ks.FindKeys.LastKey = num(lookup(spec, "lastkey"))
	ks.FindKeys.KeyStep = num(lookup(spec, "keystep"))
	ks.FindKeys.Limit = num(lookup(spec, "limit"))
	ks.FindKeys.KeyNumIdx = num(lookup(spec, "keynumidx"))
	ks.FindKeys.FirstKey = num(lookup(spec, "firstkey"))
	return ks
}

// fillDocs copies COMMAND DOCS's fields but the summary.
func fillDocs(s *engine.SpecData, d any) {
	s.Since = str(lookup(d, "since"))
	s.Group = str(lookup(d, "group"))
	s.Complexity = str(lookup(d, "complexity"))
	s.DocFlags = strs(lookup(d, "doc_flags"))
	s.DeprecatedSince = str(lookup(d, "deprecated_since"))
	s.ReplacedBy = str(lookup(d, "replaced_by"))
	s.History = nil
	if h := lookup(d, "history"); h != nil {
		for _, e := range h.([]any) {
			e := e.([]any)
			s.History = append(s.History, [2]string{e[0].(string), e[1].(string)})
		}
	}
	s.Arguments = args(lookup(d, "arguments"))
}

func args(v any) []engine.Arg {
	if v == nil {
		return nil
	}
	out := []engine.Arg{}
	for _, a := range v.([]any) {
		m := a.([]pair)
		arg := engine.Arg{
			Name:            str(lookup(m, "name")),
			Type:            str(lookup(m, "type")),
			Token:           str(lookup(m, "token")),
			Summary:         str(lookup(m, "summary")),
			Since:           str(lookup(m, "since")),
			DeprecatedSince: str(lookup(m, "deprecated_since")),
			Flags:           strs(lookup(m, "flags")),
			Arguments:       args(lookup(m, "arguments")),
		}
		if t := lookup(m, "token"); t != nil && arg.Token == "" {
			arg.EmptyToken = true
		}
		if k := lookup(m, "key_spec_index"); k != nil {
			i := int(k.(int64))
			arg.KeySpecIndex = &i
		}
		for _, p := range m {
			switch p.k {
			case "name", "type", "token", "summary", "since", "deprecated_since", "flags", "arguments", "key_spec_index":
			default:
				log.Fatalf("gencommands: argument %s has a field %q this generator does not know", arg.Name, p.k)
			}
		}
		out = append(out, arg)
	}
	return out
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return v.(string)
}

func num(v any) int {
	if v == nil {
		return 0
	}
	return int(v.(int64))
}

func strs(v any) []string {
	if v == nil {
		return nil
	}
	out := []string{}
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// A RESP3 map keeps its pairs in order.
type pair struct {
	k string
	v any
}

func lookup(m any, key string) any {
	if m == nil {
		return nil
	}
	for _, p := range m.([]pair) {
		if p.k == key {
			return p.v
		}
	}
	return nil
}

// client is a minimal RESP3 client: strings, integers, arrays, sets and
// maps are all COMMAND answers with.
type client struct {
	w io.Writer
	r *bufio.Reader
}

func (c *client) do(args ...string) (any, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.w.Write(b.Bytes()); err != nil {
		return nil, err
	}
	return c.read()
}

func (c *client) read() (any, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return nil, errors.New(body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '_':
		return nil, nil
	case '$':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*', '~':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return nil, nil
		}
		out := make([]any, 0, n)
		for range n {
			v, err := c.read()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case '%':
		n, _ := strconv.Atoi(body)
		out := make([]pair, 0, n)
		for range n {
			k, err := c.read()
			if err != nil {
				return nil, err
			}
			v, err := c.read()
			if err != nil {
				return nil, err
			}
			out = append(out, pair{fmt.Sprint(k), v})
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected reply %q", line)
}
