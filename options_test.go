package lockredis

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/lockredis/lockredis/config"
	"github.com/lockredis/lockredis/pubsub"
)

// TestOptionsAreTheSpec: every Options field tagged `config:"name"` names
// a parameter of the spec by its own name (not an alias) and carries it:
// set to a value of the spec's (its Sample, in the field's type), it
// gives that parameter that value. A field of a type params does not
// know, or a tag the spec lacks, fails here rather than at a user's
// NewServer.
func TestOptionsAreTheSpec(t *testing.T) {
	typ := reflect.TypeOf(Options{})
	tagged := 0
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, ok := f.Tag.Lookup("config")
		if !ok {
			continue
		}
		tagged++
		t.Run(f.Name, func(t *testing.T) {
			p, ok := config.Lookup(name)
			if !ok || p.Name != name {
				t.Fatalf("tag %q is not a parameter's name in the spec", name)
			}
			sample := p.Sample()
			want, why := p.Normalize(sample)
			if why != "" {
				t.Fatalf("sample %q: %s", sample, why)
			}
			var o Options
			fv := reflect.ValueOf(&o).Elem().Field(i)
			switch v := fv.Addr().Interface().(type) {
			case *string:
				*v = sample
			case *bool:
				if sample != "yes" {
					t.Fatalf("a bool field can only set yes; the spec's default is %q", p.Default)
				}
				*v = true
			case *int, *int64:
				n, err := strconv.ParseInt(sample, 10, 64)
				if err != nil || n == 0 {
					t.Fatalf("sample %q of an integer field", sample)
				}
				fv.SetInt(n)
			case *time.Duration:
				if p.Kind == config.Duration {
					d, err := time.ParseDuration(sample)
					if err != nil {
						t.Fatal(err)
					}
					*v = d
					break
				}
				n, err := strconv.ParseInt(sample, 10, 64)
				if err != nil || p.Unit == 0 {
					t.Fatalf("sample %q, unit %v of a Duration field", sample, p.Unit)
				}
				*v = time.Duration(n) * p.Unit
				if n == 0 {
					*v = -1 // a negative Duration is 0
				}
			case *pubsub.Limits:
				*v = pubsub.Limits{Hard: 1 << 20, Soft: 1 << 19, SoftFor: time.Minute}
				want, _ = p.Normalize("pubsub 1048576 524288 60")
			default:
				t.Fatalf("field type %s", f.Type)
			}
			got, err := o.params()
			if err != nil {
				t.Fatal(err)
			}
			if norm, why := p.Normalize(got[name]); why != "" || norm != want {
				t.Errorf("params()[%q] = %q (%s), want %q", name, got[name], why, want)
			}
			if len(got) != 1 {
				t.Errorf("one field set %d parameters: %v", len(got), got)
			}
		})
	}
	if tagged == 0 {
		t.Fatal("no Options field names a parameter")
	}
}
