package method

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

// TestSetKernelErrorsNameTheSet: where GDA's or CDL's set kernel cannot
// be computed on one set (its values ×1e160: their squares overflow), the
// error names the set by the pool's Names ("class/set"), also on the frame
// halves that stand for sets when every class has one, and by its index
// where the pool has no names.
func TestSetKernelErrorsNameTheSet(t *testing.T) {
	for _, per := range []int{2, 1} {
		var sets []*mat.Dense
		var labels []int
		var names []string
		for c := range 3 {
			for s := range per {
				x := testutil.RandSet(rand.New(rand.NewPCG(uint64(10*c+s+1), 2)), 12, 4, float64(c), 1)
				if c == 1 && s == per-1 {
					x.Scale(1e160, x)
				}
				sets, labels, names = append(sets, x), append(labels, c), append(names, fmt.Sprintf("c%d/s%d", c, s))
			}
		}
		bad := 2*per - 1 // the set ×1e160
		train := make([]int, len(sets))
		for i := range train {
			train[i] = i
		}
		for _, named := range []bool{true, false} {
			pool, err := NewPool(sets, 1)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("set %d: ", bad)
			if named {
				pool.Names, want = names, fmt.Sprintf("set %s: ", names[bad])
			}
			task := &Task{Pool: pool, Train: train, Labels: labels, Classes: 3, Seed: 1}
			for _, m := range []Name{GDA, CDL, KFDAMix} {
				_, err := Fit(m, task, smallGrid())
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "too large") {
					t.Errorf("%d set(s) a class, named %v, %s: error %v, want it to name the set (%q)", per, named, m, err, want)
				}
			}
			if per > 1 || !named {
				continue
			}
			// One set per class: auto's folds are the sets' frame halves.
			sel, err := Choose(task, smallGrid(), nil)
			if err != nil {
				t.Fatal(err)
			}
			seen := false
			for _, s := range sel.Scores {
				if s.Candidate.Method != KFDAMix {
					continue
				}
				seen = true
				if s.Err == nil || !strings.Contains(s.Err.Error(), "set "+names[bad]+", even frames: ") && !strings.Contains(s.Err.Error(), "set "+names[bad]+", odd frames: ") {
					t.Errorf("auto's %s on frame halves: %v, want it to name the set and its half", s.Candidate, s.Err)
				}
			}
			if !seen {
				t.Errorf("auto scored no %s candidate", KFDAMix)
			}
		}
	}
}
