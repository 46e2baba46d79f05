package deploy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
	"setmatch/openset"
)

// ringSets returns classes × sets sets of 12 frames in 6 features: class
// c's frames centred on a circle of radius radius in features 0 and 1
// (at angle 2πc/classes), spread sd there and 1 in the other four.
func ringSets(classes, sets int, radius, sd float64, seed uint64) (xs []*mat.Dense, labels, names []string) {
	rng := rand.New(rand.NewPCG(seed, 11))
	for c := range classes {
		a := 2 * math.Pi * float64(c) / float64(classes)
		for s := range sets {
			x := mat.NewDense(12, 6, nil)
			for i := range 12 {
				for j := range 6 {
					x.Set(i, j, rng.NormFloat64())
				}
				x.Set(i, 0, radius*math.Cos(a)+sd*rng.NormFloat64())
				x.Set(i, 1, radius*math.Sin(a)+sd*rng.NormFloat64())
			}
			xs, labels, names = append(xs, x), append(labels, fmt.Sprintf("class-%02d", c)), append(names, fmt.Sprintf("set-%02d-%d", c, s))
		}
	}
	return xs, labels, names
}

// splitTrainProbe splits the sets of ringSets, train + probe of each
// class, into the first train of every class (with their labels and
// names) and the probe others (with their labels).
func splitTrainProbe(all []*mat.Dense, labels, names []string, train, probe int) (trSets []*mat.Dense, trLabels, trNames []string, probes []*mat.Dense, truth []string) {
	for i, x := range all {
		if i%(train+probe) < train {
			trSets, trLabels, trNames = append(trSets, x), append(trLabels, labels[i]), append(trNames, names[i])
		} else {
			probes, truth = append(probes, x), append(truth, labels[i])
		}
	}
	return trSets, trLabels, trNames, probes, truth
}

// matchers returns the matchers of the models a and b (NewMatcher), to
// decide the same sets with both.
func matchers(t *testing.T, a, b *model.Model) (*model.Matcher, *model.Matcher) {
	t.Helper()
	am, err := a.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	bm, err := b.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	return am, bm
}

// voteMethod stands, in these tests, for a model that decides by a vote:
// kfda-mix with nn-h-dr and kfda-hl as its voters, each built alone, as
// setmatch train --method auto deployed it before (format 6). Train no
// longer deploys one; such models still load, decide, enrol and forget.
const voteMethod = "vote"

// buildFor builds the model of method (voteMethod: a vote of kfda-mix
// with nn-h-dr (d = 2) and kfda-hl as its voters, each built alone) with
// the threshold rule given.
func buildFor(t testing.TB, mname method.Name, sets []*mat.Dense, labels, names []string, rule string) *model.Model {
	t.Helper()
	methods := []method.Name{mname}
	if mname == voteMethod {
		methods = []method.Name{method.KFDAMix, method.NNHDR, method.KFDAHL}
	}
	var m *model.Model
	for _, meth := range methods {
		opt := Options{Method: meth, Grid: grid(), Seed: 3, Workers: 2}
		opt.Grid.Widths, opt.Grid.Regs = []float64{1}, []float64{1e-2, 1}
		if meth == method.NNHDR {
			opt.Dim = 2 // a W that discards directions, learned on the training classes
		}
		res := buildRule(t, &opt, rule, sets, labels, names)
		if m == nil {
			m = res.Model
		} else {
			m.Voters = append(m.Voters, res.Model)
		}
	}
	if len(m.Voters) > 0 {
		m.Selection.Params["vote"] = strings.Join(m.MemberMethods(), ", ")
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// decide returns the label m gives each probe ("unknown" when it is
// not known), with the model's own thresholds.
func decide(t *testing.T, m *model.Model, probes []*mat.Dense) []string {
	return decideAt(t, m, probes, false)
}

// decideAt is decide, or with closed the label of a closed set (no
// threshold).
func decideAt(t *testing.T, m *model.Model, probes []*mat.Dense, closed bool) []string {
	t.Helper()
	mt, err := m.NewMatcherWorkers(2)
	if err != nil {
		t.Fatal(err)
	}
	if closed {
		if mt, err = mt.WithThreshold(math.Inf(1)); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]string, len(probes))
	for i, p := range probes {
		r, err := mt.Match(p)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = "unknown"
		if r.Decision.Known {
			out[i] = r.Decision.Label
		}
	}
	return out
}

func accuracy(got, want []string, keep func(i int) bool) (float64, int) {
	right, n := 0, 0
	for i := range got {
		if keep(i) {
			n++
			if got[i] == want[i] {
				right++
			}
		}
	}
	return 100 * float64(right) / float64(n), n
}

// TestEnrollAsTrained: a class left out of training and then enrolled
// from its training sets is recognised within 5 points of a model
// trained with it from the start, for nearest neighbour, kFDA and the
// vote, each with the default threshold (recalibrated on enrolment) and
// as a closed set; so are the probes of every class, within 5 points
// closed set and within the standard error of the difference at the
// threshold.
func TestEnrollAsTrained(t *testing.T) {
	const classes, train, probe = 8, 3, 4
	all, labels, names := ringSets(classes, train+probe, 2, 0.6, 5)
	trSets, trLabels, trNames, probes, truth := splitTrainProbe(all, labels, names, train, probe)
	late := labels[len(labels)-1] // the class left out, then enrolled
	n := len(trSets) - train
	for _, mname := range []method.Name{method.NNH, method.KFDAHG, voteMethod} {
		t.Run(string(mname), func(t *testing.T) {
			full := buildFor(t, mname, trSets, trLabels, trNames, "")
			m := buildFor(t, mname, trSets[:n], trLabels[:n], trNames[:n], "")
			var add []model.NewSet
			for i := n; i < len(trSets); i++ {
				add = append(add, model.NewSet{Label: trLabels[i], Name: trNames[i], Frames: trSets[i]})
			}
			c, err := Enroll(m, add, nil, 2, time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			if c.NewClasses != 1 || c.Classes != classes || c.GallerySets != len(trSets) || c.Rates == nil {
				t.Errorf("change %+v", c)
			}
			for i, mem := range m.Members() {
				if mem.Discriminant != nil && !c.Members[i].Refitted || mem.Discriminant == nil && len(c.Members[i].Margins) != train {
					t.Errorf("member %d (%s): %+v", i+1, mem.MethodName(), c.Members[i])
				}
			}
			gotFull, gotEnrolled := decide(t, full, probes), decide(t, m, probes)
			all := func(int) bool { return true }
			lateOnly := func(i int) bool { return truth[i] == late }
			accFull, np := accuracy(gotFull, truth, all)
			accEnr, _ := accuracy(gotEnrolled, truth, all)
			lateFull, nl := accuracy(gotFull, truth, lateOnly)
			lateEnr, _ := accuracy(gotEnrolled, truth, lateOnly)
			t.Logf("%s: %d probes: trained with the class %.1f%%, enrolled %.1f%%; the class's %d probes %.1f%%, %.1f%%; threshold %s",
				mname, np, accFull, accEnr, nl, lateFull, lateEnr, c.Threshold)
			// The two models calibrate their thresholds on stand-ins of
			// different galleries (the enrolled one keeps the
			// hyper-parameters chosen without the class), so at the
			// threshold they may differ by the standard error of the
			// difference of two such shares over np probes.
			p := (accFull + accEnr) / 200
			tol := max(5, 100*math.Sqrt(2*p*(1-p)/float64(np)))
			if math.Abs(accFull-accEnr) > tol || lateEnr < lateFull-5 {
				t.Errorf("enrolled model: %.1f%% (its new class %.1f%%), trained with the class: %.1f%% (%.1f%%)", accEnr, lateEnr, accFull, lateFull)
			}
			closedFull, _ := accuracy(decideAt(t, full, probes, true), truth, all)
			closedEnr, _ := accuracy(decideAt(t, m, probes, true), truth, all)
			t.Logf("%s: closed set: trained with the class %.1f%%, enrolled %.1f%%", mname, closedFull, closedEnr)
			if math.Abs(closedFull-closedEnr) > 5 {
				t.Errorf("closed set: enrolled model %.1f%%, trained with the class %.1f%%", closedEnr, closedFull)
			}
		})
	}
}

// TestForget: after forgetting a class with the default threshold
// recalibrated, its probes come out unknown, every other class keeps its
// accuracy, and the model file holds none of its frames (as projected
// samples or raw), its set names or its label, nor the mean frame or the
// global bandwidth computed with them; the history records the change
// without them.
func TestForget(t *testing.T) {
	const train, probe = 3, 2
	all, labels, names := ringSets(7, train+probe, 6, 0.3, 9)
	trSets, trLabels, trNames, probes, truth := splitTrainProbe(all, labels, names, train, probe)
	gone := "class-03"
	for _, mname := range []method.Name{method.NNH, method.KFDAHG, voteMethod} {
		t.Run(string(mname), func(t *testing.T) {
			m := buildFor(t, mname, trSets, trLabels, trNames, "")
			before := decide(t, m, probes)
			var forgotten [][]byte // the bytes of every forgotten frame, raw and as each member holds it
			for _, mem := range m.Members() {
				for _, s := range mem.Sets {
					if s.Label == gone {
						forgotten = append(forgotten, rowBytes(s.Samples)...)
					}
				}
			}
			for i, x := range trSets {
				if trLabels[i] == gone {
					forgotten = append(forgotten, rowBytes(x)...)
				}
			}
			// Global bandwidths (every set and batch alike, from every
			// training set's frames), as decimal text in the header.
			var global []string
			var fixed []float64 // each member's query bandwidth before
			var means [][]byte  // the mean frames of every training set
			for _, mem := range m.Members() {
				fixed = append(fixed, mem.QueryBandwidth.Fixed)
				if !allZero(mem.Mean) {
					means = append(means, rowBytes(mat.NewDense(1, len(mem.Mean), mem.Mean))...)
				}
				if mem.QueryBandwidth.Kind == match.Fixed {
					global = append(global, strconv.FormatFloat(mem.QueryBandwidth.Fixed, 'g', -1, 64))
				}
			}
			var figures []float64 // training's cross-validated figures, of every member
			for _, mem := range m.Members() {
				figures = append(figures, cvFigures(mem.Selection)...)
			}
			c, err := Forget(m, gone, "", nil, 2, time.Date(2027, 5, 6, 7, 8, 9, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			if c.Sets != train || c.Classes != 6 || c.RuleDefault {
				t.Errorf("change %+v", c)
			}
			for i, mc := range c.Members {
				if mc.Bandwidth && mc.BandwidthBefore != fixed[i] {
					t.Errorf("member %d: bandwidth before %v, want the member's %v", i, mc.BandwidthBefore, fixed[i])
				}
			}
			var kept []float64
			for _, mem := range m.Members() {
				kept = append(kept, cvFigures(mem.Selection)...)
			}
			if !slices.EqualFunc(figures, kept, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
				t.Errorf("training's cross-validated figures %v before forgetting, %v after: want them kept, as enroll keeps them", figures, kept)
			}
			after := decide(t, m, probes)
			keep := func(i int) bool { return truth[i] != gone }
			accBefore, _ := accuracy(before, truth, keep)
			accAfter, _ := accuracy(after, truth, keep)
			if accAfter < accBefore {
				t.Errorf("the other classes: %.1f%% before, %.1f%% after", accBefore, accAfter)
			}
			for i, d := range after {
				if truth[i] == gone && d != "unknown" {
					t.Errorf("a probe of the forgotten class is decided %q", d)
				}
			}
			t.Logf("%s: other classes %.1f%% → %.1f%%; threshold %s", mname, accBefore, accAfter, c.Threshold)

			var b bytes.Buffer
			if err := model.Encode(&b, m); err != nil {
				t.Fatal(err)
			}
			file := b.Bytes()
			for _, f := range forgotten {
				if bytes.Contains(file, f) {
					t.Fatalf("the file holds a frame of the forgotten class (%d bytes)", len(f))
				}
			}
			for i, l := range trLabels {
				if l == gone && bytes.Contains(file, []byte(trNames[i])) {
					t.Errorf("the file names the forgotten set %s", trNames[i])
				}
			}
			if bytes.Contains(file, []byte(gone)) {
				t.Errorf("the file names the forgotten class")
			}
			for _, h := range global {
				if bytes.Contains(file, []byte(h)) {
					t.Errorf("the file holds the global bandwidth %s computed with the forgotten sets", h)
				}
			}
			for _, b := range means {
				if bytes.Contains(file, b) {
					t.Fatalf("the file holds the mean frame of every training set")
				}
			}
			if len(global) == 0 || len(means) == 0 {
				t.Error("no member has a global bandwidth or a mean: the test does not check them")
			}
			back, err := model.DecodeBytes(file)
			if err != nil {
				t.Fatal(err)
			}
			if h := back.Meta.History; len(h) != 1 || h[0].Op != model.ChangeForget || h[0].Sets != train || h[0].Classes != 6 {
				t.Errorf("history %+v", h)
			}
		})
	}
}

// cvFigures returns the cross-validated accuracy of s and every
// candidate's accuracy and time.
func cvFigures(s model.Selection) []float64 {
	f := []float64{s.CVAccuracy}
	for _, c := range s.Candidates {
		f = append(f, c.CVAccuracy, c.Seconds)
	}
	return f
}

func allZero(x []float64) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

// rowBytes returns every number of x as its 8 bytes, little-endian (as
// the model file stores numbers).
func rowBytes(x *mat.Dense) [][]byte {
	var out [][]byte
	r, _ := x.Dims()
	for i := range r {
		for _, v := range x.RawRowView(i) {
			b := make([]byte, 8)
			binary.LittleEndian.PutUint64(b, math.Float64bits(v))
			out = append(out, b)
		}
	}
	return out
}

// TestForgetKeepsRule: a fixed threshold stays; a model without a
// recorded rule is recalibrated by the default, and says so; forgetting
// one set by name removes that set alone; the last two classes stay.
func TestForgetKeepsRule(t *testing.T) {
	all, labels, names := ringSets(4, 3, 6, 0.3, 2)
	m := buildFor(t, method.NNH, all, labels, names, "0.25")
	c, err := Forget(m, "class-01", "set-01-2", nil, 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Threshold != 0.25 || !strings.Contains(c.Threshold, "kept") || c.Sets != 1 || len(m.Sets) != 11 {
		t.Errorf("threshold %v (%s), %d sets", m.Threshold, c.Threshold, len(m.Sets))
	}
	delete(m.Selection.Params, ThresholdRuleParam)
	if c, err = Forget(m, "class-01", "", nil, 1, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if !c.RuleDefault || c.Rule != DefaultThreshold || m.Threshold == 0.25 {
		t.Errorf("no recorded rule: %+v, threshold %v", c, m.Threshold)
	}
	for _, bad := range []struct{ label, set, want string }{
		{"nobody", "", `no set of class "nobody" (its classes: "class-00", "class-02", "class-03")`},
		{"Class-00", "", `no set of class "Class-00" (labels are told apart by case: --label "class-00")`},
		{"class-00", "nope", `class "class-00" has no set named "nope" (its sets: "set-00-0", "set-00-1", "set-00-2")`},
		{"class-00", "set-00-0.npy", "named after its file without the extension: --set set-00-0"},
	} {
		if _, err := Forget(m, bad.label, bad.set, nil, 1, time.Time{}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("forget %s %s: %v", bad.label, bad.set, err)
		}
	}
	// Down to two classes, too few for stand-ins: balanced on the gallery
	// itself, and said so without a word of the learned method's case.
	if c, err = Forget(m, "class-00", "", nil, 1, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Threshold, "so it is balanced on the gallery itself") || strings.Contains(c.Threshold, "--method") {
		t.Errorf("threshold at two classes: %s", c.Threshold)
	}
	if _, err := Forget(m, "class-02", "", nil, 1, time.Time{}); err == nil || !strings.Contains(err.Error(), "at least 2 classes") {
		t.Errorf("forgetting down to one class: %v", err)
	}
	if len(m.Classes()) != 2 {
		t.Errorf("%d classes left", len(m.Classes()))
	}
}

// TestNoClassHint: where forget --label names no class, the error names
// the class it differs from only by case, or lists the classes up to
// listedSets of them, and beyond that points to setmatch inspect.
func TestNoClassHint(t *testing.T) {
	var many []string
	for i := 0; i <= listedSets; i++ {
		many = append(many, fmt.Sprintf("c%02d", i))
	}
	for _, c := range []struct {
		classes     []string
		label, want string
	}{
		{[]string{"alice", "José María"}, "josé maría", `labels are told apart by case: --label "José María"`},
		{[]string{"alice", "bob"}, "crol", `its classes: "alice", "bob"`},
		{many, "C03", `labels are told apart by case: --label "c03"`},
		{many, "x", "setmatch inspect MODEL lists its 11 classes"},
	} {
		if got := noClassHint(c.classes, c.label); got != c.want {
			t.Errorf("--label %q: %q, want %q", c.label, got, c.want)
		}
	}
}

// TestNoSetHint: where forget --set names no set of the class, the error
// lists the class's set names, in gallery order, up to listedSets of
// them, and beyond that names the field of setmatch inspect --json that
// lists them; a name with an extension is told the name without it.
func TestNoSetHint(t *testing.T) {
	sets := []model.Set{{Label: "few", Name: "f 9"}, {Label: "many", Name: "m00"}, {Label: "few", Name: "f 8"}}
	for i := 1; i <= listedSets; i++ {
		sets = append(sets, model.Set{Label: "many", Name: fmt.Sprintf("m%02d", i)})
	}
	for _, c := range []struct{ label, set, want string }{
		{"few", "x", `its sets: "f 9", "f 8"`},
		{"few", "f 9.npy", "a set is named after its file without the extension: --set f 9"},
		// A path: the burst's folder, or its file, as enroll was given it.
		{"many", "/var/spool/setmatch/done/m07", "a set is named after its file or folder alone, without the folders above it or a file's extension: --set m07"},
		{"many", "done/m07/", "a set is named after its file or folder alone, without the folders above it or a file's extension: --set m07"},
		{"few", "sets/f 8.npy", "a set is named after its file or folder alone, without the folders above it or a file's extension: --set f 8"},
		{"many", `C:\spool\done\m07`, "a set is named after its file or folder alone, without the folders above it or a file's extension: --set m07"},
		{"many", "done/m99", "setmatch inspect --json MODEL lists its 11 sets: classes[].set_names"},
		{"many", "/", "setmatch inspect --json MODEL lists its 11 sets: classes[].set_names"},
		{"many", "x", "setmatch inspect --json MODEL lists its 11 sets: classes[].set_names"},
	} {
		if got := noSetHint(sets, c.label, c.set); got != c.want {
			t.Errorf("%s --set %q: %q, want %q", c.label, c.set, got, c.want)
		}
	}
}

// TestChangeStrangers: enroll and forget set the threshold again with the
// strangers' sets given, beside the stand-ins, as train does; with a
// fixed threshold rule they refuse them.
func TestChangeStrangers(t *testing.T) {
	all, labels, names := separated(5, 3, 8)
	var train []*mat.Dense
	var lab, nam []string
	var add []model.NewSet
	for i, x := range all {
		if labels[i] == "c4" {
			add = append(add, model.NewSet{Label: labels[i], Name: names[i], Frames: x})
			continue
		}
		train, lab, nam = append(train, x), append(lab, labels[i]), append(nam, names[i])
	}
	strangers, _, _ := separated(7, 2, 9)
	strangers = strangers[len(strangers)-4:] // classes c5 and c6, which the model never holds
	for _, rule := range []string{"", "none"} {
		res := buildRule(t, &Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}, rule, train, lab, nam)
		res.EffectiveParams(lab)
		for _, op := range []string{"enroll", "forget"} {
			change := func(s []*mat.Dense) (*Change, error) {
				m := *res.Model
				if op == "enroll" {
					return Enroll(&m, add, s, 1, time.Time{})
				}
				return Forget(&m, "c0", "", s, 1, time.Time{})
			}
			with, err := change(strangers)
			if rule == "none" {
				if err == nil || !strings.Contains(err.Error(), "auto:balanced") {
					t.Errorf("%s with a closed-set model: %v, want a refusal of the strangers' sets", op, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			without, err := change(nil)
			if err != nil {
				t.Fatal(err)
			}
			if with.Rates == nil || without.Rates == nil || with.Rates.Strangers != without.Rates.Strangers+len(strangers) || !strings.Contains(with.Threshold, "--strangers") {
				t.Errorf("%s: calibrated on %v with %d strangers' sets, %v without: %s", op, with.Rates, len(strangers), without.Rates, with.Threshold)
			}
		}
	}
}

// TestChangeStrangersTwoClasses: a change that leaves the model two
// classes cannot count strangers' sets, which need the stand-in folds of
// three; the refusal speaks of the model's sets, not training sets, and
// says what forget and enroll take instead (--strangers none), not to
// give three classes, which a change does not do.
func TestChangeStrangersTwoClasses(t *testing.T) {
	train, labels, names := separated(3, 3, 8)
	strangers, _, _ := separated(5, 2, 9)
	strangers = strangers[len(strangers)-2:] // class c4, which the model never holds
	res := buildRule(t, &Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}, "", train, labels, names)
	res.EffectiveParams(labels)
	m := *res.Model
	_, err := Forget(&m, "c0", "", strangers, 1, time.Time{})
	if err == nil {
		t.Fatal("forget down to two classes with strangers' sets: accepted")
	}
	for _, want := range []string{"the model's sets cannot stand in", "--strangers none"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("forget down to two classes with strangers' sets: %v; want it to say %q", err, want)
		}
	}
	for _, wrong := range []string{"training sets", "give three classes"} {
		if strings.Contains(err.Error(), wrong) {
			t.Errorf("forget down to two classes with strangers' sets: %v; it says %q", err, wrong)
		}
	}
	// Without strangers' sets, the threshold is balanced on the gallery,
	// in words of the model's sets too.
	m = *res.Model
	c, err := Forget(&m, "c0", "", nil, 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Threshold, "the model's sets cannot stand in") || strings.Contains(c.Threshold, "training sets") {
		t.Errorf("forget down to two classes: %s; want it to speak of the model's sets", c.Threshold)
	}
}

// TestForgetNamesOneFrameSet: a set of one frame, which enrol refuses
// now but an older enrol took, stops a forget whose global bandwidth is
// computed again; the error names the set and says how to go on.
func TestForgetNamesOneFrameSet(t *testing.T) {
	all, labels, names := ringSets(4, 3, 6, 0.3, 2)
	m := buildFor(t, method.KFDAMix, all, labels, names, "none")
	if b := m.Selection.Params["bandwidth"]; !strings.HasPrefix(b, "global") {
		t.Fatalf("the model's bandwidth is %q, not global: this test needs one that forget computes again", b)
	}
	one := m.Sets[0]
	one.Name, one.Samples = "one", mat.DenseCopyOf(one.Samples.Slice(0, 1, 0, m.Dim()))
	m.Sets = append(m.Sets, one)
	_, err := Forget(m, "class-02", "", nil, 1, time.Time{})
	if err == nil || !strings.Contains(err.Error(), "set class-00/one has 1 frame") || !strings.Contains(err.Error(), "setmatch forget --label class-00 --set one") {
		t.Errorf("forget with a one-frame set in the gallery: %v", err)
	}
}

// TestChangeCopyFAR: enroll refuses a copy of a gallery set whose frames
// are in another order, so that it never makes stand-ins score 0; forget
// meets openset's error of stand-ins at 0 as train does, and says what
// to do in its terms: forgetting c6 from a model trained with copies
// (one exact, one reversed, which the model scores 0) at the smallest
// auto:far=P that passed leaves the same stand-ins at 0 among fewer,
// more than P% of them. The error names the copies among the model's
// sets and says to remove one with forget, or to train again with
// auto:far=P at least the share; not to look in the training folders.
func TestChangeCopyFAR(t *testing.T) {
	build := func(all []*mat.Dense, labels, names []string, rule string) *model.Model {
		res := buildRule(t, &Options{Method: method.KFDAHG, Grid: grid(), Seed: 3, Workers: 1}, rule, all, labels, names)
		res.EffectiveParams(labels)
		return res.Model
	}
	check := func(op string, err error, pairs string) {
		t.Helper()
		t.Logf("%s: %v", op, err)
		var e *openset.StrangersAtZeroError
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v, want an openset.StrangersAtZeroError", op, err)
		}
		share := float64((1000*e.Zero+e.Strangers-1)/e.Strangers) / 10
		for _, want := range []string{pairs, "remove the copy (setmatch forget --label LABEL --set NAME)", fmt.Sprintf("or train again with --threshold auto:far=P (P ≥ %g)", share)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the error does not say %q", op, want)
			}
		}
		for _, not := range []string{"training folders", "let that share in"} {
			if strings.Contains(err.Error(), not) {
				t.Errorf("%s: the error says %q", op, not)
			}
		}
	}

	all, labels, names := separated(5, 3, 2)
	m := build(all, labels, names, "auto:far=1")
	add := []model.NewSet{{Label: "copy", Name: "x", Frames: reversed(all[0])}}
	if _, err := Enroll(m, add, nil, 1, time.Time{}); err == nil || !strings.Contains(err.Error(), "copy/x: the same frames (in this or another order) as the gallery's set c0/0-0") {
		t.Errorf("enroll of a set's frames reversed: %v, want it refused as the same frames", err)
	}

	all, labels, names = separated(7, 3, 2)
	all[3], all[4] = mat.DenseCopyOf(all[0]), reversed(all[1])
	m = build(all, labels, names, fmt.Sprintf("auto:far=%g", copiesShare(t, all, labels, names)))
	_, err := Forget(m, "c6", "", nil, 1, time.Time{})
	check("forget", err, "(2 pairs: c0/0-0 and c1/1-0, c0/0-1 and c1/1-1)")
}

// copiesShare returns the smallest auto:far=P that passes on training
// sets whose stand-ins score 0, as the error of auto:far=0 gives it.
func copiesShare(t *testing.T, all []*mat.Dense, labels, names []string) float64 {
	t.Helper()
	opt := withThreshold(t, Options{Method: method.KFDAHG, Grid: grid(), Seed: 3, Workers: 1}, "auto:far=0")
	_, err := Build(all, labels, names, opt)
	var e *openset.StrangersAtZeroError
	if !errors.As(err, &e) {
		t.Fatalf("auto:far=0: %v, want an openset.StrangersAtZeroError", err)
	}
	return float64((1000*e.Zero+e.Strangers-1)/e.Strangers) / 10
}

// TestEnrollRefusesCopyAfterForget: a forget moves the model's mean onto
// the frames it keeps and its gallery's samples with it, and those differ
// by rounding from the same burst projected anew; enroll still refuses a
// gallery set's frames given again under another label, for a model that
// keeps every direction (nn-h) and one with a learned W (nn-h-dr). The
// exact comparison let the copy in after the first forget.
func TestEnrollRefusesCopyAfterForget(t *testing.T) {
	all, labels, names := separated(4, 3, 5)
	for _, mname := range []method.Name{method.NNH, method.NNHDR} {
		m := buildFor(t, mname, all, labels, names, "none")
		if _, err := Forget(m, "c3", "", nil, 1, time.Time{}); err != nil {
			t.Fatalf("%s: forget: %v", mname, err)
		}
		add := []model.NewSet{{Label: "copy", Name: "x", Frames: reversed(all[1])}}
		if _, err := Enroll(m, add, nil, 1, time.Time{}); err == nil || !strings.Contains(err.Error(), "copy/x: the same frames (in this or another order) as the gallery's set c0/0-1") {
			t.Errorf("%s: enroll after a forget of a gallery set's frames reversed: %v, want it refused as the same frames", mname, err)
		}
	}
}

// TestForgetAfterGalleryGrew: a gallery that enrolments grew past
// method.MaxPoolFrames (a bound on the time of an evaluation's pairs) can
// still forget: the global bandwidth forget sets again compares each set's
// frames with its own alone. It failed with "at most 200000 fit an
// evaluation (use fewer or shorter sets)". The grown gallery is made with
// model.WithSets, the step Enroll takes, without each enrolment's margins.
func TestForgetAfterGalleryGrew(t *testing.T) {
	all, labels, names := ringSets(7, 3, 6, 0.3, 9)
	m := buildFor(t, method.NNH, all, labels, names, "1.5")
	rng := rand.New(rand.NewPCG(1, 2))
	var add []model.NewSet
	for p := range 1000 { // 1000 visitors, one burst of 201 frames each
		x := mat.NewDense(201, 6, nil)
		for i := range 201 {
			for j := range 6 {
				x.Set(i, j, rng.NormFloat64()+float64(p%5))
			}
		}
		add = append(add, model.NewSet{Label: fmt.Sprintf("p%04d", p), Name: "b", Frames: x})
	}
	grown, err := m.WithSets(add)
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for _, s := range grown.Sets {
		r, _ := s.Samples.Dims()
		frames += r
	}
	if frames <= method.MaxPoolFrames {
		t.Fatalf("the gallery holds %d frames, not more than %d", frames, method.MaxPoolFrames)
	}
	if _, err := Forget(grown, "p0000", "", nil, 2, time.Time{}); err != nil {
		t.Fatalf("forget in a gallery of %d frames: %v", frames, err)
	}
}

// TestRecalibrateDealsFoldsAsTrain: enroll and forget set a model's
// threshold again with the stand-in folds dealt by the seed train
// recorded (Meta.Params["seed"]), so that an unchanged gallery gets the
// threshold train gave it, not that of another dealing.
func TestRecalibrateDealsFoldsAsTrain(t *testing.T) {
	sets, labels := dataSpread(5, 1)
	var lab, names []string
	for i, l := range labels {
		lab, names = append(lab, fmt.Sprint("c", l%3, "-", i%2)), append(names, fmt.Sprint(i))
	}
	const seed = 4
	opt := Options{Method: method.NNH, Grid: grid(), Seed: seed, Workers: 1, Meta: model.Meta{Params: map[string]string{"seed": strconv.Itoa(seed)}}}
	res := buildRule(t, &opt, "auto:balanced", sets, lab, names)
	other := *res.Model
	other1 := opt
	other1.Seed = 1
	if _, _, err := recalibrateAlone(&other, other1); err != nil {
		t.Fatal(err)
	}
	if other.Threshold == res.Model.Threshold {
		t.Fatalf("seed 1 deals the folds to the same threshold as seed %d (%v): the test needs another", seed, other.Threshold)
	}
	m := *res.Model
	m.Threshold = 0
	if err := recalibrate(&m, res.Model, &Change{Members: make([]MemberChange, 1)}, nil, 1, make([]*mat.SymDense, 1)); err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.Threshold-res.Model.Threshold) > 1e-9*res.Model.Threshold {
		t.Errorf("recalibrated to %v, want train's %v (seed %d; seed 1 gives %v)", m.Threshold, res.Model.Threshold, seed, other.Threshold)
	}
}

// TestChangeKeepsCalibrationOfShapedW: a model whose W its training
// classes shaped (nn-h-dr) cannot learn W again from its projected
// gallery, so enroll and forget keep train's calibration as a fraction
// of the gallery's scale (galleryScale) and do not run stand-in folds on
// the W kept, which pulls the held-out sets to their classes: after an
// enrolment threshold/scale is as before to 1e-12, each class's
// threshold follows its spread at the exponent train chose, enrolling a
// set and forgetting it again gives back train's threshold to rounding,
// and the words name the rule; the change asks for no strangers' sets
// (NeedsStrangers), which a model without W does. Under a second.
func TestChangeKeepsCalibrationOfShapedW(t *testing.T) {
	all, labels, names := ringSets(5, 3, 2, 0.6, 4)
	for _, rule := range []string{"auto:balanced", "auto:far=20"} {
		m := buildFor(t, method.NNHDR, all, labels, names, rule)
		if NeedsStrangers(m) {
			t.Errorf("%s: a change to a model of nn-h-dr asks for strangers' sets it does not use", rule)
		}
		trained, spread := m.Threshold, m.Spread
		scale := func(m *model.Model) float64 {
			t.Helper()
			v, err := modelView(m, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			return v.scale
		}
		before := scale(m)
		extra, _, _ := ringSets(5, 4, 2, 0.6, 40)
		c, err := Enroll(m, []model.NewSet{{Label: labels[0], Name: "extra", Frames: extra[3]}}, nil, 1, time.Time{})
		if err != nil {
			t.Fatalf("%s: enroll: %v", rule, err)
		}
		after := scale(m)
		if rel := math.Abs(m.Threshold/after-trained/before) / (trained / before); rel > 1e-12 || after == before {
			t.Errorf("%s: enrolled: threshold %v / scale %v, trained %v / %v (relative difference %.3g)", rule, m.Threshold, after, trained, before, rel)
		}
		want := 0.0
		if spread != nil {
			want = spread.Exponent
		}
		if got := m.Spread; (got == nil) != (want == 0) || got != nil && got.Exponent != want {
			t.Errorf("%s: enrolled: spread %+v, want exponent %v as trained", rule, got, want)
		}
		for _, s := range []string{rule + ": train's calibration kept as", "× the gallery's scale", "W learned from the training classes cannot be learned again from the gallery"} {
			if !strings.Contains(c.Threshold, s) || !strings.Contains(m.Selection.Params["threshold"], s) {
				t.Errorf("%s: enrolled: the threshold's words do not say %q: %s", rule, s, c.Threshold)
			}
		}
		if _, err := Forget(m, labels[0], "extra", nil, 1, time.Time{}); err != nil {
			t.Fatalf("%s: forget: %v", rule, err)
		}
		if math.Abs(m.Threshold-trained) > 1e-9*trained {
			t.Errorf("%s: enrolled and forgotten: threshold %v, trained %v", rule, m.Threshold, trained)
		}
	}
	if m := buildFor(t, method.NNH, all, labels, names, ""); !NeedsStrangers(m) {
		t.Error("a change to a model of nn-h does not ask for the strangers' sets it sets its threshold on")
	}
}

// TestChangeKeepsSpreadExponentOfShapedW: a model whose W its training
// classes shaped, with a spread exponent α > 0 (set here on the model as
// train would, since train on data this small keeps α = 0), keeps α
// through an enrolment, and each class's factor is exp(α × its spread in
// the changed gallery), the enrolled class's spread moved by the new set;
// the words give α. Where no class of the gallery has two sets, α is
// kept with one threshold for every class, and the words say why. Under
// a second.
func TestChangeKeepsSpreadExponentOfShapedW(t *testing.T) {
	const alpha = 0.5
	all, labels, names := ringSets(5, 3, 2, 0.6, 4)
	m := buildFor(t, method.NNHDR, all, labels, names, "auto:balanced")
	view, err := modelView(m, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.Spread = newSpread(view.spread, alpha)
	if m.Spread == nil {
		t.Fatal("the gallery has no class spread to scale by")
	}
	factors := maps.Clone(m.Spread.Factors)
	extra, _, _ := ringSets(5, 4, 2, 0.6, 40)
	c, err := Enroll(m, []model.NewSet{{Label: labels[0], Name: "extra", Frames: extra[3]}}, nil, 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Spread == nil || m.Spread.Exponent != alpha {
		t.Fatalf("enrolled: spread %+v, want exponent %v as before", m.Spread, alpha)
	}
	after, err := modelView(m, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range labels {
		if want, got := math.Exp(alpha*after.spread[l]), m.Spread.Factor(l); math.Abs(got-want) > 1e-12*want {
			t.Errorf("enrolled: factor of %s %v, want exp(%v × %v) = %v", l, got, alpha, after.spread[l], want)
		}
	}
	if maps.Equal(m.Spread.Factors, factors) {
		t.Errorf("enrolled: the factors stay %v: not taken from the changed gallery", factors)
	}
	if s := fmt.Sprintf("to the power %g, as train chose it", alpha); !strings.Contains(c.Threshold, s) {
		t.Errorf("enrolled: the threshold's words do not say %q: %s", s, c.Threshold)
	}

	// One set a class: no spread to scale by.
	one, oneLabels, oneNames := ringSets(5, 1, 2, 0.6, 4)
	m = buildFor(t, method.NNHDR, one, oneLabels, oneNames, "auto:balanced")
	m.Spread = &model.Spread{Exponent: alpha, Factors: map[string]float64{}}
	extra, _, _ = ringSets(6, 1, 2, 0.6, 40)
	c, err = Enroll(m, []model.NewSet{{Label: "class-05", Name: "extra", Frames: extra[5]}}, nil, 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Spread != nil {
		t.Errorf("enrolled into one set a class: spread %+v, want none", m.Spread)
	}
	if s := fmt.Sprintf("no class of the gallery has two sets or more to spread (spread exponent %g, as train chose it)", alpha); !strings.Contains(c.Threshold, s) {
		t.Errorf("enrolled into one set a class: the threshold's words do not say %q: %s", s, c.Threshold)
	}
}

// TestChangeVoteMixedMembers: in a vote of kfda-mix, nn-h-dr and
// kfda-hl under auto:balanced, only the nn-h-dr member keeps train's
// calibration as a fraction of its gallery's scale; the kFDA members are
// set again on stand-in folds, so the change asks for the strangers'
// sets (NeedsStrangers), and the words say which member did what. A
// second or so.
func TestChangeVoteMixedMembers(t *testing.T) {
	all, labels, names := ringSets(5, 3, 2, 0.6, 4)
	m := buildFor(t, voteMethod, all, labels, names, "auto:balanced")
	if !NeedsStrangers(m) {
		t.Error("a change to a vote with members in the full space asks for no strangers' sets")
	}
	extra, _, _ := ringSets(5, 4, 2, 0.6, 40)
	c, err := Enroll(m, []model.NewSet{{Label: labels[0], Name: "extra", Frames: extra[3]}}, nil, 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for i, mem := range m.Members() {
		kept := strings.Contains(mem.Selection.Params["threshold"], "train's calibration kept as")
		if want := method.ClassShaped(mem.W); kept != want {
			t.Errorf("member %d (%s, W %v): calibration kept %v, want %v: %s", i+1, mem.MethodName(), mem.W != nil, kept, want, mem.Selection.Params["threshold"])
		}
	}
	if !strings.Contains(c.Threshold, "nn-h-dr") || !strings.Contains(c.Threshold, "train's calibration kept as") {
		t.Errorf("the change's words do not say the nn-h-dr member kept train's calibration: %s", c.Threshold)
	}
}

// TestChangeShapedWWithoutScaleBefore: where the gallery before a change
// has no scale (every set a copy of a set of another class), a model whose
// W its training classes shaped has no fraction of it to keep: forgetting
// the copies sets the threshold again on stand-in folds of the changed
// gallery, and the words say why. Under a second.
func TestChangeShapedWWithoutScaleBefore(t *testing.T) {
	all, labels, names := ringSets(5, 3, 2, 0.6, 4)
	m := buildFor(t, method.NNHDR, all, labels, names, "auto:balanced")
	for _, s := range slices.Clone(m.Sets) {
		s.Label = "copies"
		m.Sets = append(m.Sets, s)
	}
	if _, err := modelView(m, nil, 1); err == nil {
		t.Fatal("the gallery with a copy of every set has a scale: the test needs one without")
	}
	c, err := Forget(m, "copies", "", nil, 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"set again on the gallery, not kept as a fraction of its scale: the gallery before the change has no scale", "(W kept)"} {
		if !strings.Contains(c.Threshold, s) {
			t.Errorf("the threshold's words do not say %q: %s", s, c.Threshold)
		}
	}
	if strings.Contains(c.Threshold, "train's calibration kept") || !(m.Threshold > 0) {
		t.Errorf("threshold %v: %s", m.Threshold, c.Threshold)
	}
}

// TestThresholdWordsSayWhichChange: the words of a threshold that enroll
// or forget set again by a rule of stand-ins say, in the model, that
// the change set it, on which gallery (train's say nothing of it); a
// fixed threshold keeps train's words.
func TestThresholdWordsSayWhichChange(t *testing.T) {
	all, labels, names := ringSets(4, 3, 6, 0.3, 2)
	for _, rule := range []string{"auto:balanced", "0.25"} {
		m := buildFor(t, method.NNH, all[:11], labels[:11], names[:11], rule)
		trained := m.Selection.Params["threshold"]
		if trained == "" || strings.Contains(trained, "set again") {
			t.Fatalf("%s: train's words %q", rule, trained)
		}
		c, err := Enroll(m, []model.NewSet{{Label: labels[11], Name: names[11], Frames: all[11]}}, nil, 1, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		want := c.Threshold + " (set again by setmatch enroll on the gallery it left: the last change in the history)"
		if rule == "0.25" {
			want = trained
		}
		if got := m.Selection.Params["threshold"]; got != want {
			t.Errorf("%s: enrolled: the model's words %q, want %q", rule, got, want)
		}
		if c, err = Forget(m, labels[0], "", nil, 1, time.Time{}); err != nil {
			t.Fatal(err)
		}
		want = c.Threshold + " (set again by setmatch forget on the gallery it left: the last change in the history)"
		if rule == "0.25" {
			want = trained
		}
		if got := m.Selection.Params["threshold"]; got != want {
			t.Errorf("%s: forgotten: the model's words %q, want %q", rule, got, want)
		}
	}
}
