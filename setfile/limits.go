package setfile

import (
	"fmt"

	"setmatch/internal/bytesize"
)

// Limits bound what a reader accepts, so that a corrupt or hostile file
// cannot make the process allocate without bound. Limits are checked
// against the declared shape before any allocation for the data, and again
// while reading. A zero field means the corresponding DefaultLimits value;
// a negative field means no limit.
type Limits struct {
	// MaxBytes bounds the in-memory size of the matrix (rows×cols×8 bytes)
	// and, for CSV, the length of the text read.
	MaxBytes int64
	// MaxRows bounds the number of frames.
	MaxRows int
	// MaxCols bounds the number of features per frame.
	MaxCols int
	// Cols, if positive, is the number of features every frame must have
	// (a model's input dimension D). It is checked from the .npy header and
	// from the first CSV frame, before the body is read, so that a set of
	// the wrong dimension costs no more than its first line.
	Cols int
	// Knobs name how the caller's user sets each limit, for the error of
	// a set over it.
	Knobs Knobs
}

// Knobs name how the user of a reader's caller sets each of its limits:
// a flag of the command ("--max-bytes"), a key of the daemon's
// configuration ("spool.max_frames"). The error of a set over a limit
// says to raise it, naming its knob, only where it has one: a limit
// without one is not the user's to raise.
type Knobs struct {
	Bytes, Rows, Cols string
}

// Raise is what to do about a set over a limit that knob sets: do (e.g.
// "split the set"), and where knob is not empty, "or raise the limit"
// with the knob ("split the set or raise the limit (--max-bytes)"). The
// words of the errors of a set over a limit, setfile's and dataset's of
// a set read by its Options.Images; dataset's error of a folder of frame
// files names each limit's knob beside the limit.
func Raise(do, knob string) string {
	if knob == "" {
		return do
	}
	return do + " or raise the limit (" + knob + ")"
}

// Default limits: 256 MiB, 1<<20 frames, 1<<16 features.
const (
	DefaultMaxBytes = 256 << 20
	DefaultMaxRows  = 1 << 20
	DefaultMaxCols  = 1 << 16
)

// DefaultLimits returns the limits used when a field of Limits is zero.
func DefaultLimits() Limits {
	return Limits{MaxBytes: DefaultMaxBytes, MaxRows: DefaultMaxRows, MaxCols: DefaultMaxCols}
}

// Resolved returns l with zero fields replaced by the defaults and negative
// fields (no limit) replaced by the largest representable value.
func (l Limits) Resolved() Limits {
	d := DefaultLimits()
	const maxInt = int(^uint(0) >> 1)
	switch {
	case l.MaxBytes == 0:
		l.MaxBytes = d.MaxBytes
	case l.MaxBytes < 0:
		l.MaxBytes = 1<<63 - 1
	}
	switch {
	case l.MaxRows == 0:
		l.MaxRows = d.MaxRows
	case l.MaxRows < 0:
		l.MaxRows = maxInt
	}
	switch {
	case l.MaxCols == 0:
		l.MaxCols = d.MaxCols
	case l.MaxCols < 0:
		l.MaxCols = maxInt
	}
	return l
}

// check verifies a declared shape against l (already resolved) before
// anything is allocated.
func (l Limits) check(rows, cols int) error {
	if err := l.checkCols(cols); err != nil {
		return err
	}
	if rows > l.MaxRows {
		return limitErr("%d frames (rows) exceed the limit of %d; %s", rows, l.MaxRows, Raise("split the set", l.Knobs.Rows))
	}
	if cols > l.MaxCols {
		return limitErr("%d features (columns) exceed the limit of %d; %s", cols, l.MaxCols, Raise("reduce the features (e.g. PCA)", l.Knobs.Cols))
	}
	// rows, cols ≤ MaxInt each; compute the byte size without overflow.
	if cols > 0 && int64(rows) > l.MaxBytes/8/int64(cols) {
		need, limit := bytesize.Over(float64(rows)*float64(cols)*8, float64(l.MaxBytes))
		return limitErr("shape (%d, %d) needs %s in memory, over the limit of %s; %s",
			rows, cols, need, limit, Raise("split the set", l.Knobs.Bytes))
	}
	return nil
}

// textBudget is how many bytes of CSV text may be read for a matrix of at
// most maxBytes bytes: text is longer than the values it holds, but not
// without bound. It saturates instead of overflowing.
func textBudget(maxBytes int64) int64 {
	const most = 1<<63 - 1
	if maxBytes > (most-(1<<20))/4 {
		return most
	}
	return 4*maxBytes + 1<<20
}

// checkCols refuses a number of features other than l.Cols (when set).
func (l Limits) checkCols(cols int) error {
	if l.Cols > 0 && cols != l.Cols {
		return &Error{Msg: fmt.Sprintf("%d features per frame, but %d are expected (was the set made with the same feature extractor as the model?)", cols, l.Cols), Err: ErrColumns}
	}
	return nil
}
