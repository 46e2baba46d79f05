package features

import (
	"errors"
	"fmt"
)

// Sentinel errors. Decoding errors are *Error values wrapping one of these
// (or the underlying I/O error), so callers can tell a bad file from a
// failing disk with errors.Is.
var (
	// ErrFormat marks an image whose content is invalid or of a format
	// this package does not read.
	ErrFormat = errors.New("invalid image")

	// ErrTooLarge marks an image whose declared size exceeds MaxPixels or
	// whose file exceeds MaxFileBytes.
	ErrTooLarge = errors.New("image too large")
)

// Error describes a problem with one image. Path is the file name (or the
// name given to Decode). Msg says what is wrong. Err is ErrFormat,
// ErrTooLarge or the underlying I/O error.
type Error struct {
	Path string
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	} else if e.Err != nil && e.Err != ErrFormat && e.Err != ErrTooLarge {
		msg += ": " + e.Err.Error()
	}
	if e.Path == "" {
		return msg
	}
	return e.Path + ": " + msg
}

// Unwrap returns the sentinel or I/O error behind e.
func (e *Error) Unwrap() error { return e.Err }

func formatErr(name, format string, a ...any) error {
	return &Error{Path: name, Msg: fmt.Sprintf(format, a...), Err: ErrFormat}
}

func limitErr(name, format string, a ...any) error {
	return &Error{Path: name, Msg: fmt.Sprintf(format, a...), Err: ErrTooLarge}
}
