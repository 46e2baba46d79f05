package device

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestScratchShow(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	f := newFixture(t, "")
	p := startDaemon(t, f)
	rng := rand.New(rand.NewPCG(1, 1))
	f.drop(t, "a.npy", batch(rng, "alice"))
	f.drop(t, "x.npy", batch(rng, "nobody"))
	waitFor(t, 10*time.Second, "", func() bool { return len(names(t, filepath.Join(f.spool, DirDone))) == 2 })
	p.stop()
	b, _ := os.ReadFile(f.journal)
	t.Logf("stderr:\n%s\njournal:\n%s", p.stderr, b)
}
