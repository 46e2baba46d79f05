package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/deploy"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
	"setmatch/model"
	"setmatch/setfile"
	"setmatch/synth"
)

func TestEnrollCommand(t *testing.T) {
	src := inspectTestModel(t, math.Inf(1)) // D = 4, gallery alice ×2, bob ×1
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(51, 52))
	carol1 := writeSet(t, dir, "carol-1.npy", synth.GaussianSet(rng, 12, 4, 3))
	carol2 := writeSet(t, dir, "carol-2.npy", synth.GaussianSet(rng, 9, 4, 3))
	out := filepath.Join(dir, "more.smm")

	code, stdout, stderr := run("enroll", "--model", src, "--label", "carol", "--out", out, carol1, carol2)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "5 gallery sets, 3 classes") {
		t.Errorf("stdout %q", stdout)
	}
	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Sets[3].Label + "/" + m.Sets[3].Name + " " + m.Sets[4].Name; got != "carol/carol-1 carol-2" {
		t.Errorf("enrolled sets: %s", got)
	}
	orig, _, _ := model.ReadFile(src)
	if len(orig.Sets) != 3 {
		t.Errorf("--out given, but the source model changed: %d sets", len(orig.Sets))
	}

	// In place, with a name; then the same name again is refused and the
	// model file is left as it was.
	bob2 := writeSet(t, dir, "bob-2.npy", synth.GaussianSet(rng, 10, 4, 3))
	if code, stdout, stderr := run("enroll", "--model", out, "--label", "bob", "--name", "b2", bob2); code != 0 {
		t.Fatalf("in place: exit %d: %s", code, stderr)
	} else if want := out + ": 6 gallery sets, 3 classes\n"; stdout != want {
		t.Errorf("a set of a class the model has: stdout %q, want %q (not new)", stdout, want)
	}
	code, _, stderr = run("enroll", "--model", out, "--label", "bob", "--name", "b2", carol1)
	if code != 1 || !strings.Contains(stderr, `already has a set "b2" of class "bob": choose another name (rename the set's file or folder, or give one set its name with setmatch enroll --name NAME)`) {
		t.Errorf("duplicate name: exit %d, %s", code, stderr)
	}
	if m, _, _ := model.ReadFile(out); len(m.Sets) != 6 {
		t.Errorf("model after a refused enrol has %d sets, want 6", len(m.Sets))
	}

	wrongDim := writeSet(t, dir, "wide.npy", synth.GaussianSet(rng, 5, 7, 0))
	// Set names a model cannot hold, refused before anything is read (the
	// folder before the model is found to take no images), naming the
	// SET and what to do.
	badFile := writeSet(t, dir, "x\xff.npy", synth.GaussianSet(rng, 5, 4, 0))
	noName := writeSet(t, dir, ".npy", synth.GaussianSet(rng, 5, 4, 0))
	badDir := filepath.Join(dir, "y\xfe")
	if err := os.Mkdir(badDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "frame.png"), []byte("not read"), 0o644); err != nil {
		t.Fatal(err)
	}
	imgDir := filepath.Join(dir, "burst")
	if err := os.Mkdir(imgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(imgDir, "frame.png"), []byte("not read"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := testutil.FIFO(t, dir, "fifo.smm")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"enroll", "--label", "x", carol1}, 2, "--model is required"},
		{[]string{"enroll", "--model", out, carol1}, 2, "--label is required"},
		{[]string{"enroll", "--model", out, "--label", "x"}, 2, "at least one set"},
		{[]string{"enroll", "--model", out, "--label", "x", imgDir}, 1, "records no feature pipeline (it was trained on feature files): give the set as a feature file of 4 features per frame, made as the training features were (of images by setmatch features --features SPEC --out DIR " + imgDir + ", with the training features' SPEC)"},
		{[]string{"enroll", "--model", out, "--label", "x", dir}, 1, dir + " is a folder of feature files, not of frame images: a set of features is one file; join the folder's files into one .npy or .csv"},
		{[]string{"enroll", "--model", out, "--label", "x", filepath.Join(dir, "frame.png")}, 1, "one image, not a set"},
		{[]string{"enroll", "--model", out, "--label", "x", "--name", "n", carol1, carol2}, 2, "names one set"},
		{[]string{"enroll", "--model", out, "--label", "x", wrongDim}, 1, "model expects 4"},
		{[]string{"enroll", "--model", filepath.Join(dir, "none.smm"), "--label", "x", carol1}, 1, "none.smm"},
		{[]string{"enroll", "--model", out, "--label", "x", "--out", dir, carol1}, 2, "--out " + dir + " is a folder: give the path of the model file"},
		{[]string{"enroll", "--model", dir, "--label", "x", carol1}, 2, "--model " + dir + " is a folder"},
		{[]string{"enroll", "--model", out, "--label", "x", "--out", fifo, carol1}, 2, "--out " + fifo + " is a named pipe, not a file: a model file is written whole and renamed into place"},
		{[]string{"enroll", "--model", out, "--label", "x", "--out", "", carol1}, 2, "--out is empty: give a value, or leave the flag out"},
		{[]string{"enroll", "--model", out, "--label", "x", "--name", "", carol1}, 2, "--name is empty"},
		{[]string{"enroll", "--model", out, "--label", "x", "--name", "a\nb", carol1}, 2, `--name "a\nb" holds a control character`},
		{[]string{"enroll", "--model", out, "--label", "x", badFile}, 1, fmt.Sprintf(`%q: its set name "x\xff" (the file's name without its extension) is not valid UTF-8, which a model's set names must be: rename the file, or give the set a name with --name NAME`, badFile)},
		{[]string{"enroll", "--model", out, "--label", "x", carol1, badFile}, 1, "rename the file, or enroll it alone with --name NAME"},
		{[]string{"enroll", "--model", out, "--label", "x", badDir}, 1, `(the folder's name) is not valid UTF-8, which a model's set names must be: rename the folder, or give the set a name with --name NAME`},
		{[]string{"enroll", "--model", out, "--label", "x", noName}, 1, `its set name "" (the file's name without its extension) is empty or only spaces: rename the file`},
		{[]string{"enroll", "--model", out, "--label", "x", "--name", "n\xff", carol1}, 2, `--name "n\xff" is not valid UTF-8, which a model's set names must be: give the set another name`},
		{[]string{"enroll", "--model", out, "--label", "x", "--name", "n\xff", badFile}, 2, `--name "n\xff" is not valid`},
	} {
		code, _, stderr := run(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d mentioning %q", c.args[1:], code, stderr, c.code, c.want)
		}
	}
}

// TestEnrollImages: a burst (a folder of frames, as the daemon keeps it
// in done/) is enrolled through the model's recorded pipeline: the same
// frames as a training set give the same gallery samples; inspect lists
// the class and the enrolment in the history.
func TestEnrollImages(t *testing.T) {
	data := imageData(t, 40, 30)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "nn-h", "--data", data, "--features", "intensity:8x8", "--threshold", "none", "--out", mpath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	burst := filepath.Join(t.TempDir(), "done", "cam-0412")
	if err := os.MkdirAll(burst, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(data, "class1", "set1")
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(burst, e.Name()), b, 0o644)
	}
	// A feature file of other features than the model's pipeline makes.
	npy := filepath.Join(t.TempDir(), "wrong.npy")
	if err := setfile.WriteFile(npy, mat.NewDense(5, 40, nil)); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "carol", npy); code != 1 || !strings.Contains(stderr, "give the burst's folder of frame images instead") {
		t.Errorf("a feature file of 40 features into an image model: exit %d\n%s", code, stderr)
	}
	// An empty folder is said to be one, not a burst of the spool.
	empty := filepath.Join(t.TempDir(), "cam-0413")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "carol", empty); code != 1 || !strings.Contains(stderr, "cam-0413 is an empty folder: a set is a folder of its frame images") || strings.Contains(stderr, "tmp/NAME") {
		t.Errorf("an empty folder: exit %d\n%s", code, stderr)
	}
	// A person's folder of bursts is not itself a set: the folders in it are.
	person := filepath.Join(t.TempDir(), "carol")
	for _, d := range []string{"cam-1", "cam-2"} {
		if err := os.MkdirAll(filepath.Join(person, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "carol", person); code != 1 || !strings.Contains(stderr, "carol holds folders (cam-1, cam-2), not frame images: a set is one folder of frames: give the set folders themselves ("+filepath.Join(person, "*")+")") {
		t.Errorf("a folder of bursts: exit %d\n%s", code, stderr)
	}
	// The same frames as a training set give its very samples: the burst
	// is refused as that set given again.
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "carol", burst); code != 1 || !strings.Contains(stderr, "the same frames (in this or another order) as the gallery's set class1/set1") {
		t.Fatalf("a burst of a training set's frames: exit %d\n%s", code, stderr)
	}
	// One frame fewer: a set of its own, whose frames give the training
	// set's samples row by row.
	os.Remove(filepath.Join(burst, ents[len(ents)-1].Name()))
	code, stdout, stderr := run("enroll", "--model", mpath, "--label", "carol", burst)
	if code != 0 {
		t.Fatalf("enroll: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("carol/cam-0412: %d frames (images, features by the model's pipeline intensity:8x8", len(ents)-1)) || !strings.Contains(stdout, "5 gallery sets, 3 classes (\"carol\" is new: a person the model did not know)") ||
		!strings.Contains(stderr, "threshold by none") {
		t.Errorf("stdout %q\nstderr %s", stdout, stderr)
	}
	m, _, err := model.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	var got, want *model.Set
	for i, s := range m.Sets {
		switch s.Label + "/" + s.Name {
		case "carol/cam-0412":
			got = &m.Sets[i]
		case "class1/set1":
			want = &m.Sets[i]
		}
	}
	if got == nil || want == nil || maxAbsDiff(got.Samples, want.Samples.Slice(0, len(ents)-1, 0, want.Samples.RawMatrix().Cols).(*mat.Dense)) > 1e-9 {
		t.Fatalf("the enrolled burst's samples differ from the training set's of the same frames")
	}
	code, stdout, _ = run("inspect", mpath)
	if code != 0 || !strings.Contains(stdout, "history (setmatch enroll and forget since training):") || !regexpMatch(`enroll\s+1 added\s+3`, stdout) ||
		!regexpMatch(fmt.Sprintf(`carol\s+1\s+%d`, len(ents)-1), stdout) {
		t.Errorf("inspect:\n%s", stdout)
	}

	// A burst is read with setmatchd's limits: 257 frames are more than
	// the 256 a burst may hold.
	big := filepath.Join(t.TempDir(), "cam-0413")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	frame, err := os.ReadFile(filepath.Join(src, ents[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 257 {
		if err := os.WriteFile(filepath.Join(big, fmt.Sprintf("f%03d%s", i, filepath.Ext(ents[0].Name()))), frame, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "dave", big); code != 1 || !strings.Contains(stderr, "more than 256 entries, the limit of frames per burst") || !strings.Contains(stderr, "--max-frames 256") {
		t.Errorf("a burst of 257 frames: exit %d\n%s", code, stderr)
	}
	// A longer set folder of a data set, with --max-frames.
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "dave", "--max-frames", "300", big); code != 0 || !strings.Contains(stderr, "dave/cam-0413: 257 frames") {
		t.Errorf("a set of 257 frames with --max-frames 300: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "dave", "--max-frames", "0", big); code != 2 || !strings.Contains(stderr, "--max-frames must be at least 1") {
		t.Errorf("--max-frames 0: exit %d\n%s", code, stderr)
	}
}

// TestChangeStrangersCommand: enroll and forget take --strangers (and
// --max-bytes for them) as train does, and refuse a strangers' class the
// changed model holds.
func TestChangeStrangersCommand(t *testing.T) {
	data := trainData(t)
	strangers := strangersData(t, data, 7) // classes c04, c05, c06
	dir := t.TempDir()
	m := filepath.Join(dir, "m.smm")
	if code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--out", m); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	// A set of a training set's frames but its first: not the gallery's
	// set given again.
	x := mustRead(t, filepath.Join(data, "c00", "s000.npy"))
	n, d := x.Dims()
	set := writeSet(t, dir, "s000.npy", mat.DenseCopyOf(x.Slice(1, n, 0, d)))
	other := writeSet(t, dir, "s001.npy", mat.DenseCopyOf(x.Slice(2, n, 0, d)))
	// records: the strangers' sets the model records after the command.
	for _, tc := range []struct {
		args    []string
		code    int
		want    string
		records string
	}{
		{[]string{"enroll", "--model", m, "--label", "visitor", "--strangers", strangers, set}, 0, "6 sets of classes the model does not have (--strangers)", "6"},
		// forget reads the strangers' sets within --max-bytes, as train does.
		{[]string{"forget", "--model", m, "--label", "visitor", "--strangers", strangers, "--max-bytes", "64"}, 1, "over the limit of 64 bytes; split the set or raise the limit (--max-bytes)", "6"},
		{[]string{"forget", "--model", m, "--label", "visitor", "--strangers", strangers}, 0, "6 sets of classes the model does not have (--strangers)", "6"},
		{[]string{"enroll", "--model", m, "--label", "c05", "--strangers", strangers, set}, 1, `class "c05" of ` + strangers + ` is the class enroll adds to the model ` + m + ` (--label "c05"): strangers' sets are of people or objects the model must not know; take it out of ` + strangers, "6"},
		{[]string{"forget", "--model", m, "--label", "c00", "--set", "s000", "--strangers", data}, 1, "is also a class of the model", "6"},
		// A change without the recorded strangers' sets is refused, and
		// --strangers none sets the threshold on the stand-ins alone, after
		// which the model records none.
		{[]string{"enroll", "--model", m, "--label", "late", set}, 2, "was calibrated with 6 strangers' sets (--strangers), which it does not keep", "6"},
		// … before any burst is read: a missing one is not what it reports.
		{[]string{"enroll", "--model", m, "--label", "late", filepath.Join(dir, "no-such-burst")}, 2, "was calibrated with 6 strangers' sets", "6"},
		{[]string{"forget", "--model", m, "--label", "c00", "--set", "s000"}, 2, "--strangers none to set the threshold on the stand-in strangers alone", "6"},
		{[]string{"enroll", "--model", m, "--label", "late", "--strangers", "none", set}, 0, "enroll: late/", ""},
		{[]string{"enroll", "--model", m, "--label", "later", other}, 0, "enroll: later/", ""},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, want %d with %q\n%s", tc.args, code, tc.code, tc.want, stderr)
		}
		mod, _, err := model.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := mod.Selection.Params[deploy.GivenStrangersParam]; got != tc.records {
			t.Errorf("%q: the model records %q strangers' sets, want %q", tc.args, got, tc.records)
		}
	}
}

// TestChangesWaitForEachOther: an enroll started while another change of
// the same model holds its folder waits for it, then changes the model
// that one wrote, so neither change is lost (two enrolls at once each
// read the same model, and the second to write dropped the first's sets).
func TestChangesWaitForEachOther(t *testing.T) {
	dir := t.TempDir()
	mpath := filepath.Join(dir, "model.smm")
	data, err := os.ReadFile(inspectTestModel(t, math.Inf(1))) // alice ×2, bob ×1
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mpath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(61, 62))
	carol := writeSet(t, dir, "carol-1.npy", synth.GaussianSet(rng, 12, 4, 3))
	dave := writeSet(t, dir, "dave-1.npy", synth.GaussianSet(rng, 12, 4, -3))

	// Another change holds the folder, as cf.read takes it.
	other := changeFlags{model: mpath}
	m, err := other.read(io.Discard)
	t.Cleanup(other.unlock)
	if err != nil {
		t.Fatal(err)
	}
	var stderr testutil.LockedBuffer
	done := make(chan int)
	// The model given without a folder: the message names the folder
	// in full, not ".".
	t.Chdir(dir)
	go func() {
		done <- dispatch([]string{"enroll", "--model", "model.smm", "--label", "carol", carol}, io.Discard, &stderr)
	}()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "enroll says it waits", func() bool {
		return strings.Contains(stderr.String(), "waiting for another enroll or forget writing in "+real+"\n")
	})
	select {
	case code := <-done:
		t.Fatalf("enroll finished (exit %d) while another change held the model: %s", code, stderr.String())
	case <-time.After(200 * time.Millisecond):
	}
	// The other change writes its model and lets go.
	next, err := m.WithSets([]model.NewSet{{Label: "dave", Name: "dave-1", Frames: mustRead(t, dave)}})
	if err != nil {
		t.Fatal(err)
	}
	c := &deploy.Change{GallerySets: len(next.Sets), Classes: len(next.Classes())}
	if err := other.write(io.Discard, next, c, ""); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("enroll after the wait: exit %d: %s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("enroll still waiting a minute after the other change let go: %s", stderr.String())
	}
	got, _, err := model.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	if cl := strings.Join(got.Classes(), ","); cl != "alice,bob,dave,carol" {
		t.Errorf("classes after both changes: %s, want alice,bob,dave,carol", cl)
	}
}

func mustRead(t *testing.T, path string) *mat.Dense {
	t.Helper()
	x, err := setfile.ReadFile(path, setfile.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestEnrollLearnedAsTrained: a model of --method learned, whose
// threshold train balanced on its training sets (it has no
// cross-validated fit to repeat on stand-ins), is calibrated the same
// way after an enrol, and says so.
func TestEnrollLearnedAsTrained(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d")
	if code, _, stderr := run("synth", "--kind", "lighting", "--classes", "4", "--sets", "3", "--frames", "8", "--dim", "12", "--seed", "4245", "--out", data); code != 0 {
		t.Fatalf("synth: %s", stderr)
	}
	late := filepath.Join(dir, "late")
	if err := os.Rename(filepath.Join(data, "c03"), late); err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(dir, "m.smm")
	code, stdout, stderr := run("train", "--method", "learned", "--data", data, "--dim", "3", "--max-iter", "3", "--out", mpath)
	if code != 0 || !strings.Contains(stdout+stderr, "--method learned, W learned at the given --dim") {
		t.Fatalf("train: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = run("enroll", "--model", mpath, "--label", "c03", filepath.Join(late, "s000.npy"))
	if code != 0 {
		t.Fatalf("enroll: exit %d\n%s", code, stderr)
	}
	if out := stdout + stderr; !strings.Contains(out, "--method learned, W learned at the given --dim") || strings.Contains(out, "W kept") {
		t.Errorf("enroll into a learned model is not calibrated as train calibrated it:\n%s", out)
	}
	// The gallery holds an enrolled set: its threshold is balanced on
	// the model's sets, not on training's alone.
	if out := stdout + stderr; !strings.Contains(out, "so it is balanced on the model's sets instead") {
		t.Errorf("enroll into a learned model does not say it balanced the threshold on the model's sets:\n%s", out)
	}
}

// TestEnrollLabelFirst: a label no model can hold is refused as a usage
// error before the model or any set is read (neither exists here).
func TestEnrollLabelFirst(t *testing.T) {
	dir := t.TempDir()
	for _, label := range []string{"c\xff", "unknown", " carol"} {
		code, _, stderr := run("enroll", "--model", filepath.Join(dir, "none.smm"), "--label", label, filepath.Join(dir, "none.npy"))
		if code != 2 || !strings.Contains(stderr, "--label: the label") || strings.Contains(stderr, "none.smm") {
			t.Errorf("--label %q: exit %d, want 2 with the label's fault before the model is read:\n%s", label, code, stderr)
		}
	}
	// A new class's name no folder can have is refused once the model is
	// read, before any set is.
	m := inspectTestModel(t, math.Inf(1))
	for _, label := range []string{"a/b", ".."} {
		code, _, stderr := run("enroll", "--model", m, "--label", label, filepath.Join(dir, "none.npy"))
		if code != 2 || !strings.Contains(stderr, "--label: the label") || strings.Contains(stderr, "none.npy") {
			t.Errorf("--label %q: exit %d, want 2 with the label's fault before any set is read:\n%s", label, code, stderr)
		}
	}
}

// A new label that differs from a class of the model only by case is
// refused, and the model is left as it was: it would be a second class
// beside that one, most likely of the same person.
func TestEnrollLabelDiffersOnlyByCase(t *testing.T) {
	src := inspectTestModel(t, math.Inf(1)) // D = 4, gallery alice ×2, bob ×1
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(61, 62))
	set := writeSet(t, dir, "b-2.npy", synth.GaussianSet(rng, 10, 4, 3))
	before, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run("enroll", "--model", src, "--label", "Bob", set)
	if code != 1 || !strings.Contains(stderr, `the model has a class "bob", which differs from it only by case`) || !strings.Contains(stderr, `give --label "bob"`) {
		t.Errorf("--label Bob beside bob: exit %d, want 1 with what to do:\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(src); string(after) != string(before) {
		t.Error("the refused enrolment changed the model file")
	}
	// The existing label itself, and a new one, are taken.
	if code, _, stderr := run("enroll", "--model", src, "--label", "bob", set); code != 0 {
		t.Errorf("--label bob: exit %d\n%s", code, stderr)
	}
	other := writeSet(t, dir, "y.npy", synth.GaussianSet(rng, 10, 4, 3))
	if code, _, stderr := run("enroll", "--model", src, "--label", "bobby", other); code != 0 {
		t.Errorf("--label bobby: exit %d\n%s", code, stderr)
	}
}

// A model reached through symbolic links (model.smm -> current/model.smm,
// current -> releases/v2, as APPLIANCE.md lays a deployment out) is
// changed where the links lead: enroll and forget replace that file and
// leave the links as they are, so that swapping current still swaps the
// model.
func TestChangeThroughSymlinks(t *testing.T) {
	src := inspectTestModel(t, math.Inf(1)) // D = 4, gallery alice ×2, bob ×1
	dir := t.TempDir()
	rel := filepath.Join(dir, "releases", "v2")
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(rel, "model.smm")
	if err := os.WriteFile(target, b, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "model.smm")
	if err := os.Symlink(filepath.Join("releases", "v2"), filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("current", "model.smm"), link); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(71, 72))
	set := writeSet(t, t.TempDir(), "carol-1.npy", synth.GaussianSet(rng, 12, 4, 3))
	links := func(step string) {
		t.Helper()
		for _, l := range []string{link, filepath.Join(dir, "current")} {
			if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("after %s: %s is no longer a symbolic link (%v)", step, l, err)
			}
		}
		if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("after %s: %s: %v, mode %v", step, target, err, fi.Mode())
		}
	}
	code, stdout, stderr := run("enroll", "--model", link, "--label", "carol", set)
	if code != 0 {
		t.Fatalf("enroll: exit %d\n%s", code, stderr)
	}
	links("enroll")
	if !strings.Contains(stdout, target+": 4 gallery sets, 3 classes") {
		t.Errorf("enroll does not name the file it wrote: %q", stdout)
	}
	if m, _, err := model.ReadFile(target); err != nil || len(m.Sets) != 4 {
		t.Fatalf("the file the links lead to was not changed: %v", err)
	}
	if code, _, stderr := run("forget", "--model", link, "--label", "carol"); code != 0 {
		t.Fatalf("forget: exit %d\n%s", code, stderr)
	}
	links("forget")
	if m, _, err := model.ReadFile(target); err != nil || len(m.Sets) != 3 {
		t.Fatalf("forget did not change the file the links lead to: %v", err)
	}
}

// TestChangeStrangersShapedW: a model whose W its training classes shaped
// (nn-h-dr) keeps train's calibration on a change, the strangers' sets
// train was given in it: enroll and forget need no --strangers, read and
// check those given, and say they are not used; the model keeps its
// record of train's strangers' sets.
func TestChangeStrangersShapedW(t *testing.T) {
	data := trainData(t)
	strangers := strangersData(t, data, 7) // classes c04, c05, c06
	dir := t.TempDir()
	m := filepath.Join(dir, "m.smm")
	if code, _, stderr := trainRun("train", "--method", "nn-h-dr", "--data", data, "--strangers", strangers, "--out", m); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	x := mustRead(t, filepath.Join(data, "c00", "s000.npy"))
	n, d := x.Dims()
	set := writeSet(t, dir, "s000.npy", mat.DenseCopyOf(x.Slice(1, n, 0, d)))
	const kept = "train's calibration kept as"
	for _, tc := range []struct {
		args      []string
		code      int
		want, not string
	}{
		{[]string{"enroll", "--model", m, "--label", "late", set}, 0, kept, "not used"},
		{[]string{"forget", "--model", m, "--label", "late", "--strangers", strangers}, 0, "the 6 strangers' sets given (--strangers) are not used", ""},
		{[]string{"enroll", "--model", m, "--label", "c05", "--strangers", strangers, set}, 1, `class "c05" of`, ""},
		{[]string{"enroll", "--model", m, "--label", "late", "--strangers", "none", set}, 0, kept, "not used"},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || tc.not != "" && strings.Contains(stderr, tc.not) {
			t.Errorf("%q: exit %d, want %d with %q (and not %q)\n%s", tc.args, code, tc.code, tc.want, tc.not, stderr)
		}
		mod, _, err := model.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := mod.Selection.Params[deploy.GivenStrangersParam]; got != "6" {
			t.Errorf("%q: the model records %q strangers' sets, want train's 6", tc.args, got)
		}
	}
}

// TestChangeFolderNotWritable: enroll and forget of a model in a folder
// this user may not write in (the appliance's /var/lib/setmatch, run
// without sudo -u setmatch) are refused before any set is read or any
// threshold set, naming the folder and what to do, not the temporary
// file of the write at the end. Root writes in every folder, so as root
// the test runs itself again as another user.
func TestChangeFolderNotWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		testexec.RunTestAs(t, testexec.OtherUser, testexec.OtherUser, nil) // root writes in every folder
		return
	}
	data, err := os.ReadFile(inspectTestModel(t, math.Inf(1))) // D = 4, alice ×2, bob ×1
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	carol := writeSet(t, dir, "carol-1.npy", synth.GaussianSet(rand.New(rand.NewPCG(71, 72)), 12, 4, 3))
	// lib is a folder holding the model, of mode perm.
	lib := func(perm os.FileMode) (folder, model string) {
		folder = filepath.Join(t.TempDir(), "lib")
		model = filepath.Join(folder, "model.smm")
		if err := os.Mkdir(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(model, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(folder, perm); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(folder, 0o755) })
		return folder, model
	}
	for _, perm := range []os.FileMode{0o555, 0o000} {
		folder, model := lib(perm)
		for _, args := range [][]string{
			{"enroll", "--model", model, "--label", "carol", carol},
			{"forget", "--model", model, "--label", "alice", "--set", "a1"},
		} {
			code, stdout, stderr := run(args...)
			want := fmt.Sprintf("setmatch %s: model %s: this user may not read and write its folder %s (permission denied): run setmatch %s as a user who may (the appliance's model: sudo -u setmatch setmatch %s …), or write the changed model elsewhere with --out FILE\n", args[0], model, folder, args[0], args[0])
			if code != 1 || stdout != "" || stderr != want {
				t.Errorf("%s in a folder of mode %o: exit %d, stdout %q, stderr\n%s\nwant exit 1 and only\n%s", args[0], perm, code, stdout, stderr, want)
			}
		}
	}
	// A folder that does not exist is no matter of users.
	missing := filepath.Join(t.TempDir(), "none")
	for _, args := range [][]string{
		{"enroll", "--model", filepath.Join(missing, "model.smm"), "--label", "carol", carol},
		{"forget", "--model", filepath.Join(missing, "model.smm"), "--label", "alice"},
	} {
		code, _, stderr := run(args...)
		want := fmt.Sprintf("setmatch %s: model %s: its folder %s: no such file or directory\n", args[0], args[2], missing)
		if code != 1 || stderr != want {
			t.Errorf("%s in a folder that does not exist: exit %d, stderr\n%s\nwant exit 1 and only\n%s", args[0], code, stderr, want)
		}
	}
	// --out into such a folder, the model in one the user may write in.
	_, model := lib(0o755)
	code, _, stderr := run("enroll", "--model", model, "--label", "carol", "--out", filepath.Join(missing, "new.smm"), carol)
	if want := fmt.Sprintf("setmatch enroll: --out %s: the folder %s does not exist: create it first\n", filepath.Join(missing, "new.smm"), missing); code != 1 || stderr != want {
		t.Errorf("--out in a folder that does not exist: exit %d, stderr\n%s\nwant exit 1 and only\n%s", code, stderr, want)
	}
	folder, _ := lib(0o555)
	out := filepath.Join(folder, "new.smm")
	code, _, stderr = run("enroll", "--model", model, "--label", "carol", "--out", out, carol)
	if want := fmt.Sprintf("setmatch enroll: --out %s: this user may not read and write its folder %s (permission denied): give a folder you can write to\n", out, folder); code != 1 || stderr != want {
		t.Errorf("--out in a folder of mode 555: exit %d, stderr\n%s\nwant exit 1 and only\n%s", code, stderr, want)
	}
}

// TestImagesOfAnotherSize: a pipeline that computes its features at each
// image's own size (no @WxH) records the size of the training images:
// train says so, inspect shows it, and a burst of another size is refused
// by enroll and fails in test, saying that the size is why and what to do
// — for lbp, whose number of features does not follow the size, as for
// hog, whose number does. Trained on images of two sizes, no size is
// recorded, and a burst of a third size enrols.
func TestImagesOfAnotherSize(t *testing.T) {
	for _, spec := range []string{"lbp:2x2", "hog:8"} {
		data := imageData(t, 40, 32)
		mpath := filepath.Join(t.TempDir(), "m.smm")
		code, _, stderr := run("train", "--method", "nn-h", "--data", data, "--features", spec, "--threshold", "none", "--out", mpath)
		if code != 0 {
			t.Fatalf("%s: train: exit %d\n%s", spec, code, stderr)
		}
		if want := "train: " + spec + " computes its features at each image's own size: the model takes frames of 40x32, the training images' size, and refuses others (give a size, e.g. --features " + spec + "@40x32, to resize every frame instead)\n"; !strings.Contains(stderr, want) {
			t.Errorf("%s: train says\n%s\nwant the line\n%s", spec, stderr, want)
		}
		if code, stdout, stderr := run("inspect", mpath); code != 0 || !strings.Contains(stdout, "40x32, the training images' (the features are computed at each frame's own size: frames of another size are refused)") {
			t.Errorf("%s: inspect: exit %d\n%s%s\nwant the training images' size", spec, code, stdout, stderr)
		}
		small := imageData(t, 24, 24)
		why := "frame is 24x24 but the model's training images were 40x32: " + spec + " uses each image at its own size, so a frame of another size is described at another scale than the model learned; send frames of 40x32, or train again with a size (e.g. " + spec + "@40x32) to resize every frame"
		burst := filepath.Join(small, "class0", "set0")
		code, _, stderr = run("enroll", "--model", mpath, "--label", "carol", burst)
		if code != 1 || !strings.Contains(stderr, burst) || !strings.Contains(stderr, why) {
			t.Errorf("%s: enroll of 24x24 frames: exit %d, %q; want exit 1 with %q", spec, code, stderr, why)
		}
		code, _, stderr = run("test", "--model", mpath, "--data", small)
		if code != 1 || !strings.Contains(stderr, why) || strings.Contains(stderr, "feature extractor") {
			t.Errorf("%s: test of 24x24 frames: exit %d, %q; want exit 1 with %q", spec, code, stderr, why)
		}
	}

	mixed := imageData(t, 40, 32)
	if err := os.Rename(filepath.Join(imageData(t, 36, 30), "class1"), filepath.Join(mixed, "class2")); err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "nn-h", "--data", mixed, "--features", "lbp:2x2", "--threshold", "none", "--out", mpath); code != 0 || strings.Contains(stderr, "own size") {
		t.Fatalf("lbp:2x2 on images of two sizes: train: exit %d\n%s\nwant exit 0 and no training size", code, stderr)
	}
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "carol", filepath.Join(imageData(t, 24, 24), "class0", "set0")); code != 0 {
		t.Errorf("lbp:2x2 trained on two sizes: enroll of 24x24 frames: exit %d\n%s", code, stderr)
	}
}

// TestImagesSizeKeptByChanges: the training images' size a model records
// is written back by enroll and by forget: after both, inspect still
// shows it and a burst of another size is still refused.
func TestImagesSizeKeptByChanges(t *testing.T) {
	data := imageData(t, 40, 32)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "nn-h", "--data", data, "--features", "lbp:2x2", "--threshold", "none", "--out", mpath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	shown := "40x32, the training images'"
	// A burst of 40x32 frames not in the gallery: frames of two of its sets.
	burst := filepath.Join(t.TempDir(), "carol")
	if err := os.Mkdir(burst, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, set := range []string{"set0", "set0", "set1", "set1"} {
		frames, err := filepath.Glob(filepath.Join(data, "class0", set, "*"))
		if err != nil || len(frames) < 4 {
			t.Fatalf("frames of %s: %v, %v", set, frames, err)
		}
		b, err := os.ReadFile(frames[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(burst, fmt.Sprintf("f%d%s", i, filepath.Ext(frames[i]))), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := run("enroll", "--model", mpath, "--label", "carol", burst); code != 0 {
		t.Fatalf("enroll of 40x32 frames: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := run("inspect", mpath); code != 0 || !strings.Contains(stdout, shown) {
		t.Errorf("inspect after enroll: exit %d\n%s%s\nwant %q", code, stdout, stderr, shown)
	}
	if code, _, stderr := run("forget", "--model", mpath, "--label", "carol"); code != 0 {
		t.Fatalf("forget: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := run("inspect", mpath); code != 0 || !strings.Contains(stdout, shown) {
		t.Errorf("inspect after forget: exit %d\n%s%s\nwant %q", code, stdout, stderr, shown)
	}
	code, _, stderr := run("enroll", "--model", mpath, "--label", "dave", filepath.Join(imageData(t, 24, 24), "class0", "set0"))
	if want := "frame is 24x24 but the model's training images were 40x32"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("enroll of 24x24 frames after enroll and forget: exit %d, %q; want exit 1 with %q", code, stderr, want)
	}
}
