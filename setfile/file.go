package setfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/atomicfile"
	"setmatch/internal/bytesize"
	"setmatch/internal/regfile"
)

// Format returns "npy" or "csv" for a file name by its extension (any
// case), or "" if the extension is neither.
func Format(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".npy":
		return "npy"
	case ".csv":
		return "csv"
	}
	return ""
}

// Read reads a set from r in the format given by the extension of name
// (.npy or .csv, any case). name is also used in error messages.
func Read(r io.Reader, name string, lim Limits) (*mat.Dense, error) {
	var (
		x   *mat.Dense
		err error
	)
	switch Format(name) {
	case "npy":
		x, err = ReadNPY(r, lim)
	case "csv":
		x, err = ReadCSV(r, lim)
	default:
		err = formatErr("unknown extension %q: sets are read from .npy or .csv files", filepath.Ext(name))
	}
	return x, withPath(err, name)
}

// ReadFile reads the set in the .npy or .csv file at path.
func ReadFile(path string, lim Limits) (*mat.Dense, error) {
	if Format(path) == "" {
		return nil, withPath(formatErr("unknown extension %q: sets are read from .npy or .csv files", filepath.Ext(path)), path)
	}
	// A FIFO must not block the open (it would wait for a writer forever),
	// nor a device be read without end: only regular files are sets.
	f, fi, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, withPath(formatErr("is a directory, not a set file"), path)
		}
		return nil, withPath(formatErr("%v", errors.Unwrap(err)), path)
	}
	if err != nil {
		return nil, withPath(err, path)
	}
	defer f.Close()
	if Format(path) == "csv" {
		// CSV text is never shorter than the values it holds; refuse
		// early what could not pass the limits anyway.
		r := lim.Resolved()
		if fi.Size() > textBudget(r.MaxBytes) {
			size, limit := bytesize.Over(float64(fi.Size()), float64(r.MaxBytes))
			return nil, withPath(limitErr("file is %s, too large for the limit of %s in memory; %s",
				size, limit, Raise("split the set", r.Knobs.Bytes)), path)
		}
	}
	return Read(f, path, lim)
}

// WriteFile writes x to path atomically: to a temporary file in the same
// directory, synced, then renamed over path, so a reader never sees a
// partial file. The format follows the extension: .npy ('<f8', version
// 1.0) or .csv.
func WriteFile(path string, x *mat.Dense) error {
	var write func(io.Writer, *mat.Dense) error
	switch Format(path) {
	case "npy":
		write = WriteNPY
	case "csv":
		write = WriteCSV
	default:
		return withPath(formatErr("unknown extension %q: write sets to .npy or .csv files", filepath.Ext(path)), path)
	}
	err := atomicfile.WriteFile(path, 0o644, false, func(f *os.File) error {
		bw := bufio.NewWriter(f)
		if err := write(bw, x); err != nil {
			return err
		}
		return bw.Flush()
	})
	return withPath(err, path)
}
