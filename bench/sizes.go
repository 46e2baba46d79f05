package bench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Size is one size of the sweep: Classes classes × Sets training sets per
// class × Frames frames per set × Dim features.
type Size struct {
	Classes, Sets, Frames, Dim int
}

// String returns the size as ParseSizes reads it, "CxSxFxD".
func (sz Size) String() string {
	return fmt.Sprintf("%dx%dx%dx%d", sz.Classes, sz.Sets, sz.Frames, sz.Dim)
}

// ParseSizes reads "CxSxFxD,..." (classes × training sets per class ×
// frames per set × features).
func ParseSizes(s string) ([]Size, error) {
	var out []Size
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		parts := strings.Split(f, "x")
		if len(parts) != 4 {
			return nil, fmt.Errorf("size %q: want CxSxFxD, e.g. 100x2x18x944", f)
		}
		var v [4]int
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("size %q: %q is not a number ≥ 1", f, p)
			}
			v[i] = n
		}
		sz := Size{Classes: v[0], Sets: v[1], Frames: v[2], Dim: v[3]}
		if sz.Classes < 3 || sz.Sets < 1 || sz.Frames < 4 || sz.Dim < 2 {
			return nil, fmt.Errorf("size %q: want ≥ 3 classes, ≥ 1 set per class, ≥ 4 frames, ≥ 2 features", f)
		}
		out = append(out, sz)
	}
	if len(out) == 0 {
		return nil, errors.New("no sizes given")
	}
	return out, nil
}
