package engine

import (
	"fmt"
	"strings"
)

// ParseYesNo reads a yes|no setting (appendonly) as redis-server does: in
// any case, with Redis's error text. The engine's Config takes a bool, so
// whoever reads the words (the CLI) asks here.
func ParseYesNo(name, value string) (bool, error) {
	switch {
	case strings.EqualFold(value, "yes"):
		return true, nil
	case strings.EqualFold(value, "no"):
		return false, nil
	}
	return false, fmt.Errorf("%s: argument must be 'yes' or 'no', got %q", name, value)
}
