//go:build unix

package testutil

import "syscall"

// mkfifo makes a named pipe at p, mode 0600.
func mkfifo(p string) error { return syscall.Mkfifo(p, 0o600) }
