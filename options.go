package lockredis

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/lockredis/lockredis/config"
	"github.com/lockredis/lockredis/pubsub"
)

// params are the parameters the server starts with: Options.Params and
// the fields tagged `config:"name"` that are set, by their type:
//
//   - a string or a number is the value; "" or 0 leaves the default;
//   - a bool true is "yes"; false leaves the default;
//   - a time.Duration is written in the parameter's unit (its spec's
//     Unit, or a Go duration for a Duration parameter); 0 leaves the
//     default, a negative one is 0 (LuaTimeLimit: at once,
//     LuaHardTimeLimit: never, TCPKeepAlive: off);
//   - PubSubLimits is client-output-buffer-limit's pubsub class.
//
// A parameter given both by a field and in Params is an error, except
// client-output-buffer-limit, whose classes add up.
func (o *Options) params() (map[string]string, error) {
	out := make(map[string]string, len(o.Params)+8)
	for k, v := range o.Params {
		out[k] = v
	}
	v := reflect.ValueOf(o).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name, ok := f.Tag.Lookup("config")
		if !ok {
			continue
		}
		p, _ := config.Lookup(name)
		val, set := optionValue(p, v.Field(i).Interface())
		if !set {
			continue
		}
		for k, given := range o.Params {
			if q, ok := config.Lookup(k); ok && q == p {
				if !p.Repeat {
					return nil, fmt.Errorf("lockredis: Options.%s and Params[%q] both set %s", f.Name, k, p.Name)
				}
				val = given + " " + val
				delete(out, k)
			}
		}
		out[p.Name] = val
	}
	return out, nil
}

// optionValue is the parameter value of an Options field, and whether
// the field is set.
func optionValue(p *config.Param, v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, v != ""
	case bool:
		return "yes", v
	case int:
		return strconv.Itoa(v), v != 0
	case int64:
		return strconv.FormatInt(v, 10), v != 0
	case time.Duration:
		switch {
		case v == 0:
			return "", false
		case p.Kind == config.Duration:
			return v.String(), true
		case v < 0:
			return "0", true
		}
		return strconv.FormatInt(int64(v/p.Unit), 10), true
	case pubsub.Limits:
		return fmt.Sprintf("pubsub %d %d %d", v.Hard, v.Soft, int64(v.SoftFor/time.Second)), v != pubsub.Limits{}
	}
	panic(fmt.Sprintf("lockredis: Options field of type %T for %s", v, p.Name))
}
