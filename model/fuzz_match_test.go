package model

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzDecodeMatch: a model file that Decode accepts, however it was
// changed (the checksum recomputed, as in FuzzDecodeSealed), is one the
// daemon can use: its matcher builds, and a batch of the model's width
// is decided or refused with an error, never a panic, and a decision
// names a gallery set.
func FuzzDecodeMatch(f *testing.F) {
	for _, m := range []*Model{mfModel(41, 4, 2, []int{3, 2, 1}), hgModel(f), goldenModel(f)} {
		var b bytes.Buffer
		if err := Encode(&b, m); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes(), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, frames uint8) {
		if len(data) >= prefixLen+checksumLen {
			data = mfReseal(bytes.Clone(data))
		}
		m, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		mt, err := m.NewMatcherWorkers(1)
		if err != nil {
			t.Fatalf("a model Decode accepts has no matcher: %v", err)
		}
		n := 1 + int(frames%8)
		x := mat.NewDense(n, m.InputDim(), nil)
		for i := range n {
			for j := range m.InputDim() {
				x.Set(i, j, m.Mean[j]+math.Sin(float64(1+i*m.InputDim()+j)))
			}
		}
		res, err := mt.Match(x)
		if err != nil {
			return
		}
		g := m // the member whose result it is
		if res.Member > 0 {
			g = m.Voters[res.Member-1]
		}
		if d := res.Decision; d.Best < 0 || d.Best >= len(g.Sets) || res.Frames != n {
			t.Fatalf("decision %+v of a batch of %d frames, %d gallery sets", d, n, len(g.Sets))
		}
	})
}
