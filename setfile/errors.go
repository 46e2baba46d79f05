package setfile

import (
	"errors"
	"fmt"

	"setmatch/internal/fileerr"
)

// Sentinel errors. Every error returned by this package is an *Error that
// wraps one of these (or, for failures of the underlying reader or file
// system, the I/O error itself), so callers can tell a bad file from a
// failing disk with errors.Is.
var (
	// ErrFormat marks a file whose content is not a valid set: bad magic,
	// malformed header, unsupported dtype, wrong number of dimensions,
	// truncated or extra data, unparsable CSV, non-finite values.
	ErrFormat = fileerr.NewKind("invalid set file")

	// ErrTooLarge marks a file whose declared or actual size exceeds the
	// Limits passed to the reader.
	ErrTooLarge = fileerr.NewKind("set file exceeds limits")

	// ErrColumns marks a file whose frames have another number of features
	// than Limits.Cols asks for.
	ErrColumns = fileerr.NewKind("set file has the wrong number of features")
)

// Error describes a problem with one set file, with the fields
//
//	Path string // the file name (or the name given to Read; empty when unknown)
//	Msg  string // what is wrong and, where possible, what to do about it
//	Err  error  // ErrFormat, ErrTooLarge, ErrColumns or the underlying I/O error
//
// Its text is "Path: Msg: cause", where the cause is left out for the
// sentinels and an I/O error on the same file does not repeat the path.
// Image files (package features) fail with the same type.
type Error = fileerr.Error

func formatErr(format string, a ...any) error {
	return &Error{Msg: fmt.Sprintf(format, a...), Err: ErrFormat}
}

func limitErr(format string, a ...any) error {
	return &Error{Msg: fmt.Sprintf(format, a...), Err: ErrTooLarge}
}

func ioErr(msg string, err error) error {
	return &Error{Msg: msg, Err: err}
}

// withPath sets the path of err if it is an *Error without one, or wraps
// any other error in an *Error with that path.
func withPath(err error, path string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Path == "" {
			c := *e
			c.Path = path
			c.Err = fileerr.CauseOnly(c.Err, path)
			return &c
		}
		return err
	}
	return &Error{Path: path, Err: fileerr.CauseOnly(err, path)}
}
