package device

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

	"setmatch/match"
	"setmatch/model"
	"setmatch/setfile"
)

// Tiny test model: D = 6 features, W picks the first d = 2; three labels
// whose sets are centred far apart in the projected plane.
const (
	tinyD = 6
	tinyd = 2
	tinyH = 0.5 // bandwidth of every set and of queries
)

var tinyCenters = map[string][2]float64{
	"alice": {0, 0},
	"bob":   {6, 0},
	"carol": {0, 6},
}

// sample returns n×D frames around c in the first two coordinates, with
// small noise in the others.
func sample(rng *rand.Rand, c [2]float64, n, dim int, sd float64) *mat.Dense {
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
	w := mat.NewDense(tinyD, tinyd, nil)
	for j := range tinyd {
		w.Set(j, j, 1)
	}
	m := &model.Model{
		Divergence:     match.Hellinger,
		QueryBandwidth: match.BandwidthRule{Kind: match.Fixed, Fixed: tinyH},
		W:              w,
		Mean:           make([]float64, tinyD),
		Threshold:      threshold,
		Meta:           model.Meta{Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Tool: "device test", Data: "synthetic"},
	}
	for _, l := range []string{"alice", "bob", "carol"} {
		c := tinyCenters[l]
		if swap && l == "alice" {
			c = tinyCenters["bob"]
		} else if swap && l == "bob" {
			c = tinyCenters["alice"]
		}
		for k := range 2 {
			full := sample(rng, c, 20, tinyd, 0.5)
			m.Sets = append(m.Sets, model.Set{Label: l, Name: fmt.Sprintf("%s-%d", l, k), Samples: full, Bandwidth: tinyH})
		}
	}
	return m
}

func writeTinyModel(t testing.TB, path string, swap bool) {
	t.Helper()
	if err := model.WriteFile(path, tinyModel(0.6, swap)); err != nil {
		t.Fatal(err)
	}
}

// fixture is a temporary appliance: model, spool, journal and config.
type fixture struct {
	dir, spool, journal, model, config string
}

// newFixture writes a config using the log GPIO backend; extra is appended
// to it (TOML tables must then come after the ones written here).
func newFixture(t testing.TB, extra string) *fixture {
	t.Helper()
	d := t.TempDir()
	f := &fixture{dir: d, spool: filepath.Join(d, "spool"), journal: filepath.Join(d, "journal.jsonl"),
		model: filepath.Join(d, "model.smm"), config: filepath.Join(d, "setmatchd.toml")}
	writeTinyModel(t, f.model, false)
	f.writeConfig(t, extra)
	return f
}

func (f *fixture) configText(extra string) string {
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
%s`, f.model, f.spool, f.journal, extra)
}

func (f *fixture) writeConfig(t testing.TB, extra string) {
	t.Helper()
	if err := os.WriteFile(f.config, []byte(f.configText(extra)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTmp writes x as a .npy file into the spool's tmp/ (created if
// needed) and returns its path.
func (f *fixture) writeTmp(t testing.TB, name string, x *mat.Dense) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(f.spool, DirTmp), 0o770); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.spool, DirTmp, name)
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

// drop writes a batch the way a camera does: into tmp/, then rename() into
// new/.
func (f *fixture) drop(t testing.TB, name string, x *mat.Dense) {
	t.Helper()
	p := f.writeTmp(t, name, x)
	if err := os.MkdirAll(filepath.Join(f.spool, DirNew), 0o770); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p, filepath.Join(f.spool, DirNew, name)); err != nil {
		t.Fatal(err)
	}
}

// batch returns a 30-frame batch near a label's centre (or far from all).
func batch(rng *rand.Rand, label string) *mat.Dense {
	c, ok := tinyCenters[label]
	if !ok {
		c = [2]float64{40, -40}
	}
	return sample(rng, c, 30, tinyD, 0.5)
}

func readJournal(t testing.TB, path string) []Record {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("journal line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func names(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// expected is the decision a batch made by batch(label) must get.
func expected(label string) string {
	if _, ok := tinyCenters[label]; ok {
		return label
	}
	return "unknown"
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
