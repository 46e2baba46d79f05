package device

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/device/journal"
	"setmatch/device/spool"
)

// TestNewRefusedBeforeModel: New on the spool, or the journal, of a
// running Runner is refused for the lock before it reads the model: a
// model file that is missing is not what it says, and the pins stay
// untouched, as does a spool of its own where the journal is refused. A model that cannot be read on a free spool and journal
// still fails for the model, with nothing made: no spool, journal or lock
// file.
func TestNewRefusedBeforeModel(t *testing.T) {
	first := devicetest.NewFixture(t, "")
	r, err := New(Options{Config: fixtureConfig(t, first), Log: slog.New(slog.DiscardHandler), Driver: gpiotest.NewRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var spoolInUse *spool.InUseError
	var journalInUse *journal.InUseError
	for _, tc := range []struct {
		name   string
		spool  bool // on the first's spool (else a spool of its own)
		want   any  // the error New must give, for errors.As
		isWant func() bool
	}{
		{"spool", true, &spoolInUse, func() bool { return spoolInUse != nil && spoolInUse.Dir == first.Spool }},
		{"journal", false, &journalInUse, func() bool { return journalInUse != nil && journalInUse.Path == first.Journal }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := devicetest.NewFixture(t, "")
			g.Journal = first.Journal
			if tc.spool {
				g.Spool = first.Spool
			}
			g.WriteConfig(t, "")
			cfg := fixtureConfig(t, g)
			cfg.Model = filepath.Join(g.Dir, "missing.smm")
			rec := gpiotest.NewRecorder()
			r2, err := New(Options{Config: cfg, Log: slog.New(slog.DiscardHandler), Driver: rec})
			if err == nil {
				r2.Close()
				t.Fatal("New started beside a running Runner")
			}
			if !errors.As(err, tc.want) || !tc.isWant() {
				t.Errorf("New: %v, want the %s's in-use error", err, tc.name)
			}
			if tr := rec.Transitions(); len(tr) > 0 {
				t.Errorf("lines taken by a refused New: %v", tr)
			}
			if _, err := os.Lstat(g.Spool); !tc.spool && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the spool of its own made by a New refused for the journal (%v)", err)
			}
		})
	}

	t.Run("bad model, free spool", func(t *testing.T) {
		g := devicetest.NewFixture(t, "")
		cfg := fixtureConfig(t, g)
		cfg.Model = filepath.Join(g.Dir, "missing.smm")
		r2, err := New(Options{Config: cfg, Log: slog.New(slog.DiscardHandler), Driver: gpiotest.NewRecorder()})
		if err == nil {
			r2.Close()
			t.Fatal("New started without a model")
		}
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("New: %v, want the missing model's error", err)
		}
		for _, p := range []string{g.Spool, g.Journal, journal.LockPath(g.Journal)} {
			if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s made by a New that failed for its model (%v)", p, err)
			}
		}
	})
}
