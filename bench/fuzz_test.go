package bench

import "testing"

// FuzzParseSizes: --sizes is read or refused; every size read has
// positive fields and is written back as text that reads to it.
func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"100x2x18x944", "1x1x1x1,2x2x2x2", "", " 3x3x3x3 ,", "1x1x1", "0x1x1x1", "9999999999999999999x1x1x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sizes, err := ParseSizes(s)
		if err != nil {
			return
		}
		for _, sz := range sizes {
			if sz.Classes < 1 || sz.Sets < 1 || sz.Frames < 1 || sz.Dim < 1 {
				t.Fatalf("%q: %+v", s, sz)
			}
			back, err := ParseSizes(sz.String())
			if err != nil || len(back) != 1 || back[0] != sz {
				t.Fatalf("%q: %+v written %q reads as %v, %v", s, sz, sz.String(), back, err)
			}
		}
	})
}
