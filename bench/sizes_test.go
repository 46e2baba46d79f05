package bench

import "testing"

func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("100x2x18x944, 1000x3x20x256")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (Size{100, 2, 18, 944}) || got[1] != (Size{1000, 3, 20, 256}) {
		t.Errorf("got %+v", got)
	}
	for _, bad := range []string{"", "100x2x18", "2x2x18x944", "10x2x3x5", "10x2xAx5", "10x0x8x5"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
