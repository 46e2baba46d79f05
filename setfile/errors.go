package setfile

import (
	"errors"
	"fmt"
	"io/fs"
)

// Sentinel errors. Every error returned by this package is an *Error that
// wraps one of these (or, for failures of the underlying reader or file
// system, the I/O error itself), so callers can tell a bad file from a
// failing disk with errors.Is.
var (
	// ErrFormat marks a file whose content is not a valid set: bad magic,
	// malformed header, unsupported dtype, wrong number of dimensions,
	// truncated or extra data, unparsable CSV, non-finite values.
	ErrFormat = errors.New("invalid set file")

	// ErrTooLarge marks a file whose declared or actual size exceeds the
	// Limits passed to the reader.
	ErrTooLarge = errors.New("set file exceeds limits")
)

// Error describes a problem with one set file. Path is the file name (or
// the name given to Read; empty when unknown). Msg says what is wrong and,
// where possible, what to do about it. Err is ErrFormat, ErrTooLarge or the
// underlying I/O error.
type Error struct {
	Path string
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Err != nil && (msg == "" || (e.Err != ErrFormat && e.Err != ErrTooLarge)) {
		// A *fs.PathError repeats the path; keep only its cause.
		cause := e.Err.Error()
		var pe *fs.PathError
		if errors.As(e.Err, &pe) && pe.Path == e.Path {
			cause = pe.Err.Error()
		}
		if msg == "" {
			msg = cause
		} else {
			msg += ": " + cause
		}
	}
	if e.Path == "" {
		return msg
	}
	return e.Path + ": " + msg
}

// Unwrap returns the sentinel or I/O error behind e.
func (e *Error) Unwrap() error { return e.Err }

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
			return &c
		}
		return err
	}
	return &Error{Path: path, Err: err}
}
