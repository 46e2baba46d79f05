package bench

import (
	"runtime"
	"testing"

	"setmatch/match"
)

// TestMatchReportsWorkersThatRan: the workers reported are the
// goroutines the matcher ran, at most one per gallery set: a gallery of
// one set with --workers 8 was reported as timed by "8 workers".
func TestMatchReportsWorkersThatRan(t *testing.T) {
	for _, c := range []struct{ gallery, workers, want int }{
		{1, 8, 1},
		{3, 2, 2},
		{2, 0, min(runtime.GOMAXPROCS(0), 2)},
	} {
		res, err := Match(MatchOptions{Gallery: c.gallery, Frames: 3, Dim: 2, QueryFrames: 3, Queries: 1, Workers: c.workers, Seed: 1, Rule: match.BandwidthRule{Kind: match.Fixed, Fixed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Workers != c.want {
			t.Errorf("gallery %d, --workers %d: reported %d workers, want %d", c.gallery, c.workers, res.Workers, c.want)
		}
	}
}
