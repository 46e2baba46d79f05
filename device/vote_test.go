package device

import (
	"bytes"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/device/devicetest"
	"setmatch/model"
)

// A model that decides by a vote runs with its members' own thresholds;
// a configured decision.threshold can only make it a closed set (inf):
// a number is refused with the reason, by a reload (which keeps the model
// in use) and by setmatchd -check.
func TestVoteModelThreshold(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	r, ch := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	m := fixtureModel(t, f)
	// Two voters on the model with alice's and bob's sets swapped: they
	// outvote the model on a batch of alice.
	swapped := filepath.Join(f.Dir, "swapped.smm")
	devicetest.WriteTinyModel(t, swapped, true)
	v1, _, err := model.ReadFile(swapped)
	if err != nil {
		t.Fatal(err)
	}
	v2 := *v1
	v1.Threshold, v2.Threshold = 0.3, 0.4
	m.Voters = []*model.Model{v1, &v2}
	cfg, text := useModel(t, f, r, "vote.smm", m) // without a configured threshold
	if got := r.Model().Model.MethodName(); !strings.HasPrefix(got, "vote(") {
		t.Fatalf("model in use decides by %q after the reload", got)
	}
	// A batch is decided by the vote; the journal says how each member
	// voted and gives the deciding member's threshold (the first voter's).
	f.Drop(t, "a.npy", devicetest.Batch(rand.New(rand.NewPCG(4, 5)), "alice"))
	rec := next(t, ch)
	if rec.Decision != "bob" || strings.Join(rec.Votes, ",") != "alice,bob,bob" || rec.Threshold == nil || *rec.Threshold != 0.3 {
		t.Errorf("journal line of a vote: decision %q, votes %q, threshold %v", rec.Decision, rec.Votes, rec.Threshold)
	}
	id := r.Model().ID()
	for _, th := range []float64{0.5, math.Inf(1)} {
		c := cfg
		c.Decision.Threshold = &th
		_, err := r.Reload(&c)
		switch {
		case math.IsInf(th, 1) && err != nil:
			t.Errorf("threshold inf on a vote: %v", err)
		case !math.IsInf(th, 1) && (err == nil || !strings.Contains(err.Error(), "decision.threshold") || !strings.Contains(err.Error(), "one number cannot replace them")):
			t.Errorf("threshold %g on a vote: %v", th, err)
		}
		if r.Model().ID() != id {
			t.Errorf("threshold %g: the model in use changed", th)
		}
	}

	// setmatchd -check
	var out bytes.Buffer
	if err := Check(f.Config, &out); err != nil || !strings.Contains(out.String(), "threshold each member's (nn-h-dr 0.6, nn-h-dr 0.3, nn-h-dr 0.4)") {
		t.Errorf("check of a vote: %v\n%s", err, out.String())
	}
	if err := os.WriteFile(f.Config, append(text, "\n[decision]\nthreshold = 0.5\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(f.Config, &out); err == nil || !strings.Contains(err.Error(), "one number cannot replace them") {
		t.Errorf("check of a vote with threshold 0.5: %v", err)
	}
}
