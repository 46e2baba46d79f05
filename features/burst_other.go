//go:build !unix

package features

import "errors"

const (
	oNonBlock  = 0
	oDirectory = 0
)

// haveOpenat says there is no openat that refuses links here: openIn
// compares the open file with the name instead.
const haveOpenat = false

func openat(uintptr, string, int) (int, error) { return -1, errors.ErrUnsupported }
