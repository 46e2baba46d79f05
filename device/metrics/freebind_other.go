//go:build !linux

package metrics

import "syscall"

// freeBind does nothing where IP_FREEBIND does not exist: an address the
// machine does not have is an error.
func freeBind(_, _ string, _ syscall.RawConn) error { return nil }
