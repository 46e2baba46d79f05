// Package devicetest builds temporary appliances for the tests and benchmarks
// of package device and of setmatchd: a small model whose decisions are
// known, a spool, a journal and a configuration that uses the log GPIO
// backend, and writers that drop batches into the spool the way a camera
// does; a model of image sets with its pipeline and bursts of its images
// (images.go); and the benchmark's model of 1000 gallery sets and its
// batches (bench.go).
package devicetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/device/journal"
	"setmatch/device/spool"
	"setmatch/internal/testutil"
	"setmatch/match"
	"setmatch/model"
	"setmatch/setfile"
)

// The test model: D = 6 features, W picks the first d = 2; three labels
// whose sets are centred far apart in the projected plane.
const (
	TinyD = 6
	tinyd = 2
	tinyH = 0.5 // bandwidth of every set and of queries
)

// TinyCenters are the centres, in the projected plane (the first two of
// the TinyD features), of the test model's three classes' sets: far apart
// next to the frames' spread, so that every batch drawn around one of them
// (Sample) is decided as that class.
var TinyCenters = map[string][2]float64{
	"alice": {0, 0},
	"bob":   {6, 0},
	"carol": {0, 6},
}

// Sample returns n×D frames around c in the first two coordinates, with
// small noise in the others.
func Sample(rng *rand.Rand, c [2]float64, n, dim int, sd float64) *mat.Dense {
	x := mat.NewDense(n, dim, nil)
	for i := range n {
		for j := range dim {
			v := rng.NormFloat64() * sd
			if j < 2 {
				v += c[j]
			}
			x.Set(i, j, v)
		}
	}
	return x
}

// tinyModel builds the test model; swap exchanges the centres of alice and
// bob, so that the same batch is decided differently by the two models.
func tinyModel(threshold float64, swap bool) *model.Model {
	rng := rand.New(rand.NewPCG(1, 2))
	w := mat.NewDense(TinyD, tinyd, nil)
	for j := range tinyd {
		w.Set(j, j, 1)
	}
	m := &model.Model{
		Divergence:     match.Hellinger,
		QueryBandwidth: match.BandwidthRule{Kind: match.Fixed, Fixed: tinyH},
		W:              w,
		Mean:           make([]float64, TinyD),
		Threshold:      threshold,
		Meta:           model.Meta{Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Tool: "device test", Data: "synthetic"},
	}
	for _, l := range []string{"alice", "bob", "carol"} {
		c := TinyCenters[l]
		if swap && l == "alice" {
			c = TinyCenters["bob"]
		} else if swap && l == "bob" {
			c = TinyCenters["alice"]
		}
		for k := range 2 {
			full := Sample(rng, c, 20, tinyd, 0.5)
			m.Sets = append(m.Sets, model.Set{Label: l, Name: fmt.Sprintf("%s-%d", l, k), Samples: full, Bandwidth: tinyH})
		}
	}
	return m
}

// WriteTinyModel writes the test model to path: D = TinyD features, sets of
// labels alice, bob and carol around TinyCenters, threshold 0.6; swap
// exchanges the centres of alice and bob.
func WriteTinyModel(t testing.TB, path string, swap bool) {
	t.Helper()
	if err := model.WriteFile(path, tinyModel(0.6, swap)); err != nil {
		t.Fatal(err)
	}
}

// Fixture is a temporary appliance: the paths of its directory, spool,
// journal, model and configuration file.
type Fixture struct {
	Dir, Spool, Journal, Model, Config string
}

// NewFixture writes a config using the log GPIO backend; extra is appended
// to it (TOML tables must then come after the ones written here).
func NewFixture(t testing.TB, extra string) *Fixture {
	t.Helper()
	d := t.TempDir()
	f := &Fixture{Dir: d, Spool: filepath.Join(d, "spool"), Journal: filepath.Join(d, "journal.jsonl"),
		Model: filepath.Join(d, "model.smm"), Config: filepath.Join(d, "setmatchd.toml")}
	WriteTinyModel(t, f.Model, false)
	f.WriteConfig(t, extra)
	return f
}

// ConfigText is the configuration NewFixture writes, with extra appended.
func (f *Fixture) ConfigText(extra string) string {
	return fmt.Sprintf(`model = %q

[spool]
dir = %q
rescan_interval = "2s"
done_max_files = 5000

[journal]
path = %q

[gpio]
backend = "log"
match_pin = "GPIO17"
unknown_pin = "GPIO27"
pulse = "2ms"

[gpio.label_pins]
alice = "GPIO22"

[log]
level = "debug"
%s`, f.Model, f.Spool, f.Journal, extra)
}

// WriteConfig writes ConfigText(extra) to the configuration file.
func (f *Fixture) WriteConfig(t testing.TB, extra string) {
	t.Helper()
	if err := os.WriteFile(f.Config, []byte(f.ConfigText(extra)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteTmp writes x as a .npy file into the spool's tmp/ (created if
// needed) and returns its path.
func (f *Fixture) WriteTmp(t testing.TB, name string, x *mat.Dense) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(f.Spool, spool.DirTmp), 0o770); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.Spool, spool.DirTmp, name)
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := setfile.WriteNPY(w, x); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Drop writes a batch the way a camera does: into tmp/, then rename() into
// new/.
func (f *Fixture) Drop(t testing.TB, name string, x *mat.Dense) {
	t.Helper()
	p := f.WriteTmp(t, name, x)
	if err := os.MkdirAll(filepath.Join(f.Spool, spool.DirNew), 0o770); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p, filepath.Join(f.Spool, spool.DirNew, name)); err != nil {
		t.Fatal(err)
	}
}

// Batch returns a 30-frame batch near a label's centre (or far from all).
func Batch(rng *rand.Rand, label string) *mat.Dense {
	c, ok := TinyCenters[label]
	if !ok {
		c = [2]float64{40, -40}
	}
	return Sample(rng, c, 30, TinyD, 0.5)
}

// ReadJournal returns the records of the journal at path (none if it does
// not exist).
func ReadJournal(t testing.TB, path string) []journal.Record {
	t.Helper()
	recs, _ := ReadJournalLines(t, path)
	return recs
}

// ReadJournalLines returns the records of the journal at path and their
// lines as written, in order (none if it does not exist). A line that is
// not a record fails t.
func ReadJournalLines(t testing.TB, path string) ([]journal.Record, []string) {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []journal.Record
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r journal.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("journal line %q: %v", sc.Text(), err)
		}
		recs, lines = append(recs, r), append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs, lines
}

// Batches lists the batches in dir: its entries but the hidden ones (the
// reasons folder of failed/, the attempt markers of cur/).
func Batches(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range testutil.Names(t, dir) {
		if !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return out
}

// Expected is the decision a batch made by Batch(label) must get.
func Expected(label string) string {
	if _, ok := TinyCenters[label]; ok {
		return label
	}
	return "unknown"
}
