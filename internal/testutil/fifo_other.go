//go:build !unix

package testutil

import "errors"

// mkfifo makes no named pipe: outside unix (Windows) a file system has
// none.
func mkfifo(string) error { return errors.ErrUnsupported }
