package features

import (
	"fmt"

	"setmatch/internal/fileerr"
)

// Sentinel errors. Decoding errors are *Error values wrapping one of these
// (or the underlying I/O error), so callers can tell a bad file from a
// failing disk with errors.Is.
var (
	// ErrFormat marks an image whose content is invalid or of a format
	// this package does not read.
	ErrFormat = fileerr.NewKind("invalid image")

	// ErrTooLarge marks an image whose declared size exceeds MaxPixels or
	// whose file exceeds MaxFileBytes.
	ErrTooLarge = fileerr.NewKind("image too large")
)

// Error describes a problem with one image, with the fields
//
//	Path string // the file name (or the name given to Decode)
//	Msg  string // what is wrong
//	Err  error  // ErrFormat, ErrTooLarge or the underlying I/O error
//
// Its text is "Path: Msg: cause", where the cause is left out for the
// sentinels. It is the error type of package setfile too.
type Error = fileerr.Error

func formatErr(name, format string, a ...any) error {
	return &Error{Path: name, Msg: fmt.Sprintf(format, a...), Err: ErrFormat}
}

func limitErr(name, format string, a ...any) error {
	return &Error{Path: name, Msg: fmt.Sprintf(format, a...), Err: ErrTooLarge}
}
