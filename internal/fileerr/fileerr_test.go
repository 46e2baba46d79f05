package fileerr

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"testing"
)

var errBad = NewKind("bad file")

func TestErrorText(t *testing.T) {
	pe := &fs.PathError{Op: "open", Path: "a.npy", Err: fs.ErrNotExist}
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{Path: "a.npy", Msg: "truncated", Err: errBad}, "a.npy: truncated"},
		{&Error{Msg: "truncated", Err: errBad}, "truncated"},
		{&Error{Path: "a.npy", Err: errBad}, "a.npy: bad file"},
		{&Error{Path: "a.npy", Msg: "reading header", Err: io.ErrUnexpectedEOF}, "a.npy: reading header: unexpected EOF"},
		{&Error{Path: "a.npy", Msg: "cannot open", Err: pe}, "a.npy: cannot open: open a.npy: file does not exist"},
		{&Error{Path: "a.npy", Msg: "cannot open", Err: CauseOnly(pe, "a.npy")}, "a.npy: cannot open: file does not exist"},
		{&Error{Path: "a.npy", Err: CauseOnly(pe, "a.npy")}, "a.npy: file does not exist"},
		{&Error{Path: "b.npy", Err: CauseOnly(pe, "b.npy")}, "b.npy: open a.npy: file does not exist"},
		{&Error{Path: "a.npy", Err: CauseOnly(fmt.Errorf("wrapped: %w", pe), "a.npy")}, "a.npy: file does not exist"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%#v: got %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestUnwrap(t *testing.T) {
	pe := &fs.PathError{Op: "read", Path: "x", Err: os.ErrPermission}
	var err error = &Error{Path: "x", Msg: "reading", Err: CauseOnly(pe, "x")}
	var got *fs.PathError
	if !errors.As(err, &got) || got != pe || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("%v does not unwrap to its *fs.PathError", err)
	}
	err = &Error{Msg: "truncated", Err: errBad}
	if !errors.Is(err, errBad) || errors.Is(err, NewKind("bad file")) {
		t.Errorf("sentinels: errors.Is must match the sentinel itself only")
	}
	if CauseOnly(nil, "x") != nil || CauseOnly(io.EOF, "x") != io.EOF {
		t.Errorf("CauseOnly changed an error without a PathError")
	}
}
