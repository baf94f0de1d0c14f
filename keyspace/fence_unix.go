//go:build unix

package keyspace

import (
	"errors"
	"os"
	"syscall"
)

// lockDir takes an exclusive advisory lock on dir for the life of the
// process (released by closing the returned file). held reports that
// another process has it.
func lockDir(dir string) (f *os.File, held bool, err error) {
	f, err = os.Open(dir)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, true, nil
		}
		return nil, false, err
	}
	return f, false, nil
}
