// Package fileerr holds the error type shared by the file readers of
// setmatch (setfile for sets, features for images): what is wrong with one
// named file, wrapping a sentinel or the underlying I/O error.
package fileerr

import (
	"errors"
	"io/fs"
)

// Error describes a problem with one file. Path is the file name (or the
// name given to the reader; empty when unknown). Msg says what is wrong and,
// where possible, what to do about it. Err is a sentinel made by NewKind or
// the underlying I/O error.
//
// Its text is "Path: Msg", followed by ": " and the text of Err unless Err
// is a sentinel; Msg alone is the text of Err when Msg is empty.
type Error struct {
	Path string
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Err != nil && (msg == "" || !isKind(e.Err)) {
		if msg == "" {
			msg = e.Err.Error()
		} else {
			msg += ": " + e.Err.Error()
		}
	}
	if e.Path == "" {
		return msg
	}
	return e.Path + ": " + msg
}

// Unwrap returns the sentinel or I/O error behind e.
func (e *Error) Unwrap() error { return e.Err }

// kind is a sentinel error: its text is left out of an Error's text that
// already has a Msg.
type kind struct{ text string }

func (k *kind) Error() string { return k.text }

// NewKind returns a new sentinel error with the given text, for errors.Is.
func NewKind(text string) error { return &kind{text} }

func isKind(err error) bool {
	_, ok := err.(*kind)
	return ok
}

// CauseOnly returns err for use as the Err of an Error whose Path is path:
// when err holds an *fs.PathError on that same path, the result prints only
// the PathError's cause (the path is printed once, by the Error), and still
// unwraps to err. Other errors are returned unchanged.
func CauseOnly(err error, path string) error {
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) || pe.Path != path {
		return err
	}
	return &causeOnly{err: err, text: pe.Err.Error()}
}

type causeOnly struct {
	err  error
	text string
}

func (c *causeOnly) Error() string { return c.text }
func (c *causeOnly) Unwrap() error { return c.err }
