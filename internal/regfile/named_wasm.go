//go:build js || wasip1

package regfile

import "os"

// named returns f itself: js and wasip1 cannot duplicate a descriptor
// (syscall.Dup is ENOSYS), so the file keeps the name os.Root gives it,
// root's name and the path under it.
func named(f *os.File, _ string) (*os.File, error) { return f, nil }
