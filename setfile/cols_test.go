package setfile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// bodyReader fails the test if the reader reads past the bytes it is meant
// to stop at: a set with the wrong number of features must be refused from
// its header or first line alone.
var _ io.Reader = (*bodyReader)(nil)

type bodyReader struct {
	t    *testing.T
	head io.Reader
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.head.Read(p)
	if err == io.EOF {
		b.t.Errorf("the reader read past the header into the body")
		return 0, errors.New("body read")
	}
	return n, err
}

func TestColsCheckedBeforeBody(t *testing.T) {
	lim := Limits{Cols: 4}
	// An .npy whose header says 8 features: the body (absent here) is
	// never read.
	head := npyBytes(1, dict("<f4", "False", "(100000, 8)"), nil)
	_, err := ReadNPY(&bodyReader{t: t, head: strings.NewReader(string(head))}, lim)
	if !errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), "8 features per frame, but 4 are expected") {
		t.Errorf("npy with 8 features, want 4: err = %v", err)
	}
	// A CSV whose first frame has 8 values: the lines after it are not read.
	_, err = Read(&bodyReader{t: t, head: strings.NewReader("# comment\n1,2,3,4,5,6,7,8\n")}, "x.csv", lim)
	if !errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), "line 2: 8 features per frame, but 4 are expected") {
		t.Errorf("csv with 8 features, want 4: err = %v", err)
	}
	// The right number passes.
	x, err := Read(strings.NewReader("1,2,3,4\n5,6,7,8\n"), "x.csv", lim)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 2 || c != 4 {
		t.Errorf("dims %d×%d", r, c)
	}
	x, err = ReadNPY(strings.NewReader(string(npyBytes(1, dict("<f8", "False", "(1, 4)"), f64bytes(1, 2, 3, 4)))), lim)
	if err != nil || x.RawRowView(0)[3] != 4 {
		t.Errorf("npy with 4 features: %v", err)
	}
}

// TestColsFewerRefused: Limits.Cols refuses frames with fewer features than
// it asks for, not only more, in .npy and CSV.
func TestColsFewerRefused(t *testing.T) {
	lim := Limits{Cols: 4}
	_, err := ReadNPY(bytes.NewReader(npyBytes(1, dict("<f8", "False", "(2, 2)"), f64bytes(1, 2, 3, 4))), lim)
	if !errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), "2 features per frame, but 4 are expected") {
		t.Errorf("npy with 2 features, want 4: err = %v", err)
	}
	_, err = ReadCSV(strings.NewReader("1,2\n3,4\n"), lim)
	if !errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), "line 1: 2 features per frame, but 4 are expected") {
		t.Errorf("csv with 2 features, want 4: err = %v", err)
	}
}
