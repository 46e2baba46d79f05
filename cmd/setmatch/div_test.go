package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/setfile"
	"setmatch/synth"
)

// run calls the dispatcher as the command line would and returns the exit
// status and both outputs.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeSet writes x as dir/name, making dir where it is missing.
func writeSet(t *testing.T, dir, name string, x *mat.Dense) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := setfile.WriteFile(path, x); err != nil {
		t.Fatal(err)
	}
	return path
}

// divPair writes two random sets, a of na and b of nb frames of d
// features (b's around mean meanB, a's around 0, drawn from a stream of
// seed), as a.npy and b.npy in a new folder dir.
func divPair(t *testing.T, seed uint64, na, nb, d int, meanB float64) (dir string, a, b *mat.Dense, pa, pb string) {
	t.Helper()
	dir = t.TempDir()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	a, b = synth.GaussianSet(rng, na, d, 0), synth.GaussianSet(rng, nb, d, meanB)
	return dir, a, b, writeSet(t, dir, "a.npy", a), writeSet(t, dir, "b.npy", b)
}

func TestDivJSONMatchesLibrary(t *testing.T) {
	_, a, b, pa, pb := divPair(t, 1, 30, 20, 4, 1)

	code, stdout, stderr := run("div", "--json", "--bandwidth", "0.7", pa, pb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Hellinger2, Jeffrey float64
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, stdout)
	}
	if strings.Count(strings.TrimSpace(stdout), "\n") != 0 {
		t.Errorf("want exactly one line of JSON, got:\n%s", stdout)
	}
	p, q, err := match.PairKDEs(pa, pb, a, b, match.BandwidthRule{Kind: match.Fixed, Fixed: 0.7}) // centred on their mean, as div does
	if err != nil {
		t.Fatal(err)
	}
	want, _ := match.Compare(p, q)
	if got.Hellinger2 != want.Hellinger2 || got.Jeffrey != want.Jeffrey {
		t.Errorf("div --json = %+v, library = %+v", got, want)
	}

	// A rule per set and the text output.
	code, stdout, stderr = run("div", "--bandwidth-rule", "silverman", pa, pb)
	if code != 0 || !strings.Contains(stdout, "hellinger2") || !strings.Contains(stdout, "jeffrey") {
		t.Errorf("text output (exit %d): %s %s", code, stdout, stderr)
	}
}

// TestDivJSONNames: a set's path that is not valid UTF-8 is written as
// JSON writes it (U+FFFD for the bad byte) with its exact bytes in
// path_b64; a valid path has none, also one that reads alike.
func TestDivJSONNames(t *testing.T) {
	dir, a, b, _, _ := divPair(t, 5, 10, 12, 3, 0.5)
	pa, pb := writeSet(t, dir, "x\xff.npy", a), writeSet(t, dir, "x\ufffd.npy", b)
	code, stdout, stderr := run("div", "--json", pa, pb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct{ A, B map[string]any }
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	text := filepath.Join(dir, "x\ufffd.npy")
	if got.A["path"] != text || got.A["path_b64"] != base64.StdEncoding.EncodeToString([]byte(pa)) {
		t.Errorf("a: %v, want the path %q with path_b64 of %q", got.A, text, pa)
	}
	if _, ok := got.B["path_b64"]; got.B["path"] != pb || ok {
		t.Errorf("b: %v, want the path %q without path_b64", got.B, pb)
	}
}

func TestDivCSVAndNPYAgree(t *testing.T) {
	dir, _, b, pa, pb := divPair(t, 3, 10, 12, 3, 0.5)
	var csv bytes.Buffer
	if err := setfile.WriteCSV(&csv, b); err != nil {
		t.Fatal(err)
	}
	pc := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(pc, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, fromNPY, _ := run("div", "--json", "--bandwidth", "1", pa, pb)
	_, fromCSV, _ := run("div", "--json", "--bandwidth", "1", pa, pc)
	var x, y struct{ Hellinger2, Jeffrey float64 }
	if err := json.Unmarshal([]byte(fromNPY), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(fromCSV), &y); err != nil {
		t.Fatal(err)
	}
	if math.Abs(x.Hellinger2-y.Hellinger2) > 1e-12 || math.Abs(x.Jeffrey-y.Jeffrey) > 1e-12 {
		t.Errorf("npy %+v vs csv %+v", x, y)
	}
}

func TestDivBadInput(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	good := writeSet(t, dir, "good.npy", synth.GaussianSet(rng, 5, 3, 0))
	other := writeSet(t, dir, "other.npy", synth.GaussianSet(rng, 5, 4, 0))
	one := writeSet(t, dir, "one.npy", synth.GaussianSet(rng, 1, 3, 0))
	junk := filepath.Join(dir, "junk.npy")
	os.WriteFile(junk, []byte("\x93NUMPY\x01\x00garbage"), 0o644)
	nanCSV := filepath.Join(dir, "nan.csv")
	os.WriteFile(nanCSV, []byte("1,2,3\n4,nan,6\n"), 0o644)

	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no files", []string{"div"}, 2, "want two set files"},
		{"both bandwidth flags", []string{"div", "--bandwidth", "1", "--bandwidth-rule", "scott", good, good}, 2, "not both"},
		{"zero bandwidth", []string{"div", "--bandwidth", "0", good, good}, 2, "--bandwidth must be a number from 1e-150 to 1e+150, got 0"},
		{"bad rule", []string{"div", "--bandwidth-rule", "median", good, good}, 2, "scott, silverman or nn"},
		{"dimension mismatch", []string{"div", good, other}, 1, "same feature extractor"},
		{"one frame, rule", []string{"div", good, one}, 1, "at least 2 frames"},
		{"missing file", []string{"div", good, filepath.Join(dir, "nope.npy")}, 1, "nope.npy"},
		{"malformed npy", []string{"div", good, junk}, 1, "junk.npy"},
		{"NaN in csv", []string{"div", good, nanCSV}, 1, "nan.csv"},
		{"over --max-bytes", []string{"div", "--max-bytes", "64", good, good}, 1, "good.npy: shape (5, 3) needs 120 bytes in memory, over the limit of 64 bytes; split the set or raise the limit (--max-bytes)"},
	} {
		code, _, stderr := run(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d mentioning %q", c.name, code, stderr, c.code, c.want)
		}
	}
	// One frame is fine with a fixed bandwidth.
	if code, _, stderr := run("div", "--bandwidth", "1", good, one); code != 0 {
		t.Errorf("one frame with fixed bandwidth: exit %d: %s", code, stderr)
	}
}

func TestBenchJSON(t *testing.T) {
	code, stdout, stderr := run("bench", "--json", "--gallery", "20", "--frames", "10", "--dim", "3", "--query-frames", "8", "--queries", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		MsPerQuery    *float64 `json:"ms_per_query"`
		BytesPerQuery *int64   `json:"bytes_per_query"`
		Gallery       int      `json:"gallery_sets"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if res.MsPerQuery == nil || *res.MsPerQuery <= 0 || res.BytesPerQuery == nil || res.Gallery != 20 {
		t.Errorf("bench result %s", stdout)
	}
	if code, _, _ := run("bench", "--gallery", "0"); code != 2 {
		t.Errorf("--gallery 0: exit %d, want 2", code)
	}
}

func TestBenchTrainJSON(t *testing.T) {
	code, stdout, stderr := run("bench", "--mode", "train", "--json", "--classes", "3", "--sets", "2", "--frames", "12",
		"--in-dim", "6", "--out-dim", "2", "--max-iter", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Iterations int     `json:"iterations"`
		SecTotal   float64 `json:"sec_total"`
		Sets       int     `json:"sets"`
		FinalCost  float64 `json:"final_cost"`
		Initial    float64 `json:"initial_cost"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if res.Sets != 6 || res.Iterations < 1 || res.SecTotal <= 0 || res.FinalCost > res.Initial {
		t.Errorf("train bench result %s", stdout)
	}
}

// TestDivDefaultRuleIsNN checks that with no bandwidth flag each set gets
// the nn rule, and that it tells one class from another in 40 dimensions,
// where Scott's rule saturates (H² near 2 for every pair of sets).
func TestDivDefaultRuleIsNN(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	// Like image features: each class a point in 40 dimensions, its frames
	// spread along one direction (say pose) plus noise in every feature. The
	// frames lie about σ√(2·40) ≈ 0.9 apart; Scott's rule gives h ≈ σ ≈ 0.14,
	// the nn rule h ≈ the distance to the nearest other frame.
	const d, frames = 40, 40
	class := func() func() *mat.Dense {
		mean := synth.GaussianSet(rng, 1, d, 0)
		mean.Scale(0.15, mean)
		dir := synth.GaussianSet(rng, 1, d, 0)
		dir.Scale(0.1, dir)
		return func() *mat.Dense {
			x := synth.GaussianSet(rng, frames, 1, 0)
			var y mat.Dense
			y.Mul(x, dir)
			for i := range frames {
				for j := range d {
					y.Set(i, j, y.At(i, j)+mean.At(0, j)+0.1*rng.NormFloat64())
				}
			}
			return &y
		}
	}
	ca, cb := class(), class()
	a1 := writeSet(t, dir, "a1.npy", ca())
	a2 := writeSet(t, dir, "a2.npy", ca())
	b := writeSet(t, dir, "b.npy", cb())
	h2 := func(args ...string) (float64, string) {
		t.Helper()
		code, stdout, stderr := run(append([]string{"div", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("div %v: exit %d: %s", args, code, stderr)
		}
		var got struct {
			Hellinger2 float64
			Rule       string `json:"bandwidth_rule"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, stdout)
		}
		return got.Hellinger2, got.Rule
	}
	within, rule := h2(a1, a2)
	if rule != "nn" {
		t.Errorf("default bandwidth rule %q, want nn", rule)
	}
	if nn, _ := h2("--bandwidth-rule", "nn", a1, a2); nn != within {
		t.Errorf("default H² %v, --bandwidth-rule nn %v", within, nn)
	}
	across, _ := h2(a1, b)
	sWithin, _ := h2("--bandwidth-rule", "scott", a1, a2)
	sAcross, _ := h2("--bandwidth-rule", "scott", a1, b)
	t.Logf("H² within a class, across classes: nn %.4g, %.4g; scott %.6g, %.6g", within, across, sWithin, sAcross)
	if !(within < across/4) {
		t.Errorf("default (nn): within-class H² %v not well below across-class %v", within, across)
	}
	// The contrast the default exists for: Scott's rule sees every pair of
	// sets as almost equally far apart on the same data.
	if !(sAcross-sWithin < (across-within)/10) {
		t.Errorf("scott separates the classes (%v vs %v) about as well as nn (%v vs %v): the test data no longer show why nn is the default",
			sWithin, sAcross, within, across)
	}
}

// TestDivBandwidthRange: a bandwidth a KDE does not take is refused
// before any divergence is NaN, blaming what is at fault: a fixed
// --bandwidth out of range or a --bandwidth-rule scale that takes the
// rule's bandwidth out of it is a usage error (exit 2) that names the
// flag, not a set; a rule's bandwidth out of range on its own is the
// features' values, with scaleadvice's factor.
func TestDivBandwidthRange(t *testing.T) {
	dir, _, _, pa, pb := divPair(t, 11, 10, 12, 20, 0.5)
	rng := rand.New(rand.NewPCG(12, 13))
	tinyA, tinyB := synth.GaussianSet(rng, 10, 20, 0), synth.GaussianSet(rng, 10, 20, 0)
	tinyA.Scale(1e-160, tinyA)
	tinyB.Scale(1e-160, tinyB)
	ta, tb := writeSet(t, dir, "ta.npy", tinyA), writeSet(t, dir, "tb.npy", tinyB)
	for _, c := range []struct {
		name      string
		args      []string
		code      int
		want, not string
	}{
		{"fixed too small", []string{"--bandwidth", "1e-300", pa, pb}, 2, "--bandwidth must be a number from 1e-150 to 1e+150, got 1e-300", "a.npy"},
		{"fixed too large", []string{"--bandwidth", "1e300", pa, pb}, 2, "--bandwidth must be a number from 1e-150 to 1e+150, got 1e+300", "features"},
		{"scale too large", []string{"--bandwidth-rule", "nn*1e308", pa, pb}, 2, "--bandwidth-rule nn*1e+308: ", "the features"},
		{"scale too small", []string{"--bandwidth-rule", "scott*1e-300", pa, pb}, 2, "which its scale, 1e-300, makes", "the features"},
		{"tiny values, nn", []string{ta, tb}, 1, "ta.npy: the nn rule: bandwidth is", "not numbers"},
		{"tiny values, silverman", []string{"--bandwidth-rule", "silverman", ta, tb}, 1, "outside 1e-150 to 1e+150, where the kernel nears the limits of a float64: scale the features up, e.g. multiply them by 1e+161\n", "not numbers"},
	} {
		code, stdout, stderr := run(append([]string{"div"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Contains(stderr, c.not) || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d mentioning %q, not %q", c.name, code, stdout, stderr, c.code, c.want, c.not)
		}
	}
	// The scale takes the nn rule's bandwidth out of range: the message
	// gives the scales that keep it in.
	_, _, stderr := run("div", "--bandwidth-rule", "nn*1e308", pa, pb)
	if !strings.Contains(stderr, "give a scale from about ") || strings.Contains(stderr, "divide them by 1e+00") {
		t.Errorf("nn*1e308: %q", stderr)
	}
}
