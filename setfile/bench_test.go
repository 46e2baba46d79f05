package setfile

import (
	"bytes"
	"io"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchSet is 100 frames × 400 features, the size of a high-dimensional set.
func benchSet() *mat.Dense {
	x := mat.NewDense(100, 400, nil)
	for i := range 100 {
		for j := range 400 {
			x.Set(i, j, float64(i*400+j)*1e-3)
		}
	}
	return x
}

func BenchmarkReadNPY(b *testing.B) { benchRead(b, WriteNPY, ReadNPY) }

func BenchmarkReadCSV(b *testing.B) { benchRead(b, WriteCSV, ReadCSV) }

// benchRead times read of benchSet as write wrote it.
func benchRead(b *testing.B, write func(io.Writer, *mat.Dense) error, read func(io.Reader, Limits) (*mat.Dense, error)) {
	var buf bytes.Buffer
	if err := write(&buf, benchSet()); err != nil {
		b.Fatal(err)
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := read(bytes.NewReader(in), Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
