package regfile

import (
	"os"
	"syscall"
)

// named returns f named label: a file of its handle, duplicated, once f
// is closed. On an error f stays open.
func named(f *os.File, label string) (*os.File, error) {
	p, err := syscall.GetCurrentProcess()
	if err != nil {
		return nil, err
	}
	var h syscall.Handle
	if err := syscall.DuplicateHandle(p, syscall.Handle(f.Fd()), p, &h, 0, false, syscall.DUPLICATE_SAME_ACCESS); err != nil {
		return nil, err
	}
	f.Close()
	return os.NewFile(uintptr(h), label), nil
}
