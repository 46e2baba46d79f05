package eval

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/method"
)

func toyData(classes, per, n int) *Data {
	rng := rand.New(rand.NewPCG(51, 52))
	d := &Data{}
	for c := range classes {
		name := string(rune('a' + c))
		d.Classes = append(d.Classes, name)
		for s := range per {
			d.Sets = append(d.Sets, testutil.RandSet(rng, n, 2, float64(c), 1))
			d.Labels = append(d.Labels, c)
			d.Names = append(d.Names, name+"/"+name+string(rune('0'+s)))
		}
	}
	return d
}

func TestParseProtocol(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Protocol
	}{
		{"gallery=5,probe=5,splits=10", Protocol{Kind: RandomSplits, Gallery: 5, Probe: 5, Splits: 10}},
		{"gallery=3,probe=rest", Protocol{Kind: RandomSplits, Gallery: 3, Probe: 0, Splits: 10}},
		{"loo", Protocol{Kind: LeaveOneOut}},
		{"file=x.txt", Protocol{Kind: SplitFile, File: "x.txt"}},
	} {
		got, err := ParseProtocol(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseProtocol(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if err == nil {
			back, err := ParseProtocol(got.String())
			if err != nil || back != got {
				t.Errorf("round trip of %q via %q: %+v, %v", tc.in, got.String(), back, err)
			}
		}
	}
	for _, bad := range []string{"", "gallery=5", "gallery=0,probe=1", "gallery=a,probe=1", "gallery=1,probe=1,foo=2", "file=", "probe=2", "gallery=2,probe=2,splits=1001", "gallery=2,probe=2,splits=1000000000"} {
		if _, err := ParseProtocol(bad); err == nil {
			t.Errorf("ParseProtocol(%q) accepted", bad)
		}
	}
}

func TestRandomSplits(t *testing.T) {
	d := toyData(3, 6, 4)
	p := Protocol{Kind: RandomSplits, Gallery: 2, Probe: 3, Splits: 4}
	splits, err := p.MakeSplits(d, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 4 {
		t.Fatalf("%d splits, want 4", len(splits))
	}
	again, _ := p.MakeSplits(d, 7)
	other, _ := p.MakeSplits(d, 8)
	differ := false
	for s, sp := range splits {
		gal := map[int]int{}
		prb := map[int]int{}
		used := map[int]bool{}
		for _, i := range sp.Gallery {
			gal[d.Labels[i]]++
			used[i] = true
		}
		for _, i := range sp.Probe {
			if used[i] {
				t.Errorf("split %d: set %d is both gallery and probe", s, i)
			}
			prb[d.Labels[i]]++
		}
		for c := range 3 {
			if gal[c] != 2 || prb[c] != 3 {
				t.Errorf("split %d class %d: %d gallery, %d probe sets; want 2 and 3", s, c, gal[c], prb[c])
			}
		}
		if !slices.Equal(sp.Gallery, again[s].Gallery) || !slices.Equal(sp.Probe, again[s].Probe) {
			t.Errorf("split %d differs with the same seed", s)
		}
		differ = differ || !slices.Equal(sp.Gallery, other[s].Gallery)
	}
	if !differ {
		t.Error("a different seed gave the same splits")
	}
	if _, err := (Protocol{Kind: RandomSplits, Gallery: 5, Probe: 5, Splits: 1}).MakeSplits(d, 1); err == nil || !strings.Contains(err.Error(), "needs 10") {
		t.Errorf("too few sets per class: err = %v", err)
	}
	rest, _ := (Protocol{Kind: RandomSplits, Gallery: 2, Probe: 0, Splits: 1}).MakeSplits(d, 1)
	if len(rest[0].Probe) != 12 {
		t.Errorf("probe=rest: %d probes, want 12", len(rest[0].Probe))
	}
}

func TestLeaveOneOut(t *testing.T) {
	d := toyData(2, 3, 4)
	splits, err := Protocol{Kind: LeaveOneOut}.MakeSplits(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 6 {
		t.Fatalf("%d splits, want 6", len(splits))
	}
	for i, sp := range splits {
		if len(sp.Probe) != 1 || sp.Probe[0] != i || len(sp.Gallery) != 5 {
			t.Errorf("split %d: gallery %v probe %v", i, sp.Gallery, sp.Probe)
		}
	}
}

func TestPooledSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	d := &Data{Classes: []string{"s1", "s2"}, Pooled: true}
	for c := range 2 {
		x := mat.NewDense(10, 3, nil)
		for i := range 10 {
			x.SetRow(i, []float64{float64(c), float64(i), rng.Float64()})
		}
		d.Sets = append(d.Sets, x)
		d.Labels = append(d.Labels, c)
	}
	splits, err := Protocol{Kind: RandomSplits, Gallery: 5, Probe: 5, Splits: 3}.MakeSplits(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	// A set of one frame has no spread: gallery and probe sets need two
	// frames or more (probe=rest: the frames the gallery leaves), and all
	// of them must fit the pool.
	for _, p := range []Protocol{{Gallery: 1, Probe: 5}, {Gallery: 5, Probe: 1}, {Gallery: 9, Probe: 0}, {Gallery: 6, Probe: 5}} {
		p.Kind, p.Splits = RandomSplits, 1
		if _, err := p.MakeSplits(d, 1); err == nil || !strings.Contains(err.Error(), "at least 2 frames") {
			t.Errorf("pooled gallery=%d,probe=%d of 10 frames: %v, want an error", p.Gallery, p.Probe, err)
		}
	}
	for s, sp := range splits {
		sets := sp.AllSets()
		if len(sets) != 4 || len(sp.Gallery) != 2 || len(sp.Probe) != 2 {
			t.Fatalf("split %d: %d sets, gallery %v, probe %v", s, len(sets), sp.Gallery, sp.Probe)
		}
		for k := range sp.Gallery {
			g, q := sets[sp.Gallery[k]], sets[sp.Probe[k]]
			if sp.Labels[sp.Gallery[k]] != sp.Labels[sp.Probe[k]] {
				t.Fatal("gallery and probe of a class have different labels")
			}
			seen := map[float64]bool{}
			for _, x := range []*mat.Dense{g, q} {
				n, _ := x.Dims()
				if n != 5 {
					t.Errorf("split %d: set of %d frames, want 5", s, n)
				}
				for i := range n {
					if x.At(i, 0) != float64(sp.Labels[sp.Gallery[k]]) {
						t.Error("frame drawn from another class's pool")
					}
					f := x.At(i, 1)
					if seen[f] {
						t.Errorf("split %d: frame %v drawn twice", s, f)
					}
					seen[f] = true
				}
			}
		}
	}
	if _, err := (Protocol{Kind: RandomSplits, Gallery: 6, Probe: 5, Splits: 1}).MakeSplits(d, 1); err == nil {
		t.Error("more frames than the pool holds accepted")
	}
	if _, err := (Protocol{Kind: LeaveOneOut}).MakeSplits(d, 1); err == nil {
		t.Error("leave-one-out on pooled data accepted")
	}
}

func TestReadSplits(t *testing.T) {
	d := toyData(2, 3, 4)
	in := `# two splits
0 gallery a/a0
0 gallery b/b0
0 probe a/a1
0 probe b/b2

7 gallery a/a2
7 gallery b/b1
7 probe   a/a0
`
	splits, err := ReadSplits(strings.NewReader(in), "s.txt", d)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 2 || !slices.Equal(splits[0].Gallery, []int{0, 3}) || !slices.Equal(splits[0].Probe, []int{1, 5}) ||
		!slices.Equal(splits[1].Gallery, []int{2, 4}) || !slices.Equal(splits[1].Probe, []int{0}) {
		t.Errorf("splits %+v", splits)
	}
	// A byte-order mark, as some editors write, is not part of the
	// first split's number.
	if got, err := ReadSplits(strings.NewReader("\ufeff"+in), "s.txt", d); err != nil || len(got) != 2 || !slices.Equal(got[0].Gallery, splits[0].Gallery) {
		t.Errorf("with a byte-order mark: %v, %+v", err, got)
	}
	for _, tc := range []struct{ in, want string }{
		{"0 gallery a/zz\n", "no set"},
		{"99999999999999999999 gallery a/a0\n", `s.txt:1: split "99999999999999999999" is too large a number: number the splits 1, 2, 3, …`},
		{"0 gallery a/a0\n0 gallery a/a1\n0 probe a/a2\n", "split 0's gallery holds 1 class: a model tells at least two apart"},
		{"0 gallery\n", `want "<split> <gallery|probe|visitor|other> <class>/<set>"`},
		{"0 train a/a0\n", "role"},
		{"x gallery a/a0\n", "whole number"},
		{"0 gallery a/a0\n0 probe a/a0\n", "twice"},
		{"0 gallery a/a0\n", "needs gallery and probe"},
		{"0 gallery\n", "want"},
		{"", "no splits"},
		{"0 gallery a/a0\n0 probe a/" + strings.Repeat("x", 70000) + "\n", "s.txt:2: a line longer than 64 KiB"},
		// Lines ended by CR alone (classic Mac text) read as one line:
		// refused as such, not as a set "a/a0\r0 gallery b/b0\r…" not in
		// the data, nor, after a comment, as a file without splits.
		{"0 gallery a/a0\r0 gallery b/b0\r0 probe a/a1\r0 probe b/b1\r", "s.txt:1: the line holds a carriage return (\\r) inside it: the file's lines end in CR alone"},
		{"# splits\r0 gallery a/a0\r0 gallery b/b0\r0 probe a/a1\r", "s.txt:1: the line holds a carriage return"},
		{"0 gallery a/a0\n0 gallery b/b0\r0 probe a/a1\r", "s.txt:2: the line holds a carriage return"},
	} {
		_, err := ReadSplits(strings.NewReader(tc.in), "s.txt", d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want it to mention %q", tc.in, err, tc.want)
		}
	}
}

// TestReadSplitsOpenSet: a probe set whose class has no gallery set in
// its split is a stranger's only in a file marked as an open set (as
// WriteSplits marks one); unmarked, such a file (leave-one-out with a
// class of one set, or one written by hand) is a closed set, as before.
func TestReadSplitsOpenSet(t *testing.T) {
	d := toyData(3, 2, 4) // classes a, b, c; sets x0, x1
	body := "0 gallery a/a0\n0 gallery b/b0\n0 probe a/a1\n0 probe c/c0\n" +
		"1 gallery a/a1\n1 gallery c/c1\n1 probe a/a0\n1 probe b/b1\n" +
		"2 gallery a/a0\n2 gallery b/b0\n2 probe a/a1\n" // a closed split among them
	closed, err := ReadSplits(strings.NewReader(body), "s.txt", d)
	if err != nil {
		t.Fatal(err)
	}
	for k, sp := range closed {
		if sp.Strangers != nil {
			t.Errorf("unmarked file, split %d: strangers %v", k, sp.Strangers)
		}
	}
	// c/c0 in split 0 and b/b1 in split 1 can only be named wrong.
	if n, m := Unnamable(closed); n != 2 || m != 2 {
		t.Errorf("Unnamable of the unmarked file: %d sets in %d splits, want 2 in 2", n, m)
	}
	open := OpenSetMark + "\n" + body[:strings.Index(body, "2 gallery")]
	splits, err := ReadSplits(strings.NewReader(open), "s.txt", d)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 2 || !slices.Equal(splits[0].Strangers, []int{2}) || !slices.Equal(splits[1].Strangers, []int{1}) {
		t.Errorf("marked file: %+v", splits)
	}
	if n, m := Unnamable(splits); n != 0 || m != 0 {
		t.Errorf("Unnamable of the marked file: %d sets in %d splits: strangers' probes are not named", n, m)
	}
	if _, err := ReadSplits(strings.NewReader(OpenSetMark+"\n"+body), "s.txt", d); err == nil || !strings.Contains(err.Error(), "split 2 has no strangers' probes") {
		t.Errorf("a marked file with a closed split: %v", err)
	}
	var b strings.Builder
	if err := WriteSplits(&b, splits, d); err != nil || !strings.HasPrefix(b.String(), OpenSetMark+"\n") {
		t.Errorf("WriteSplits of an open set: %v\n%s", err, b.String())
	}
}

// TestReadSplitsOpenSetRefuses checks that ReadSplits refuses the marked
// files strangers=K could not have made: splits with unlike numbers of
// stranger classes, and a split whose probes are all strangers'.
func TestReadSplitsOpenSetRefuses(t *testing.T) {
	d := toyData(4, 2, 4) // classes a, b, c, d; sets x0, x1
	for _, tc := range []struct {
		name, body, want string
	}{
		{"unlike stranger counts",
			"0 gallery a/a0\n0 gallery b/b0\n0 probe a/a1\n0 probe c/c0\n" +
				"1 gallery a/a1\n1 gallery b/b1\n1 probe a/a0\n1 probe c/c1\n1 probe d/d0\n",
			"split 1 has 2 stranger classes"},
		{"strangers' probes only",
			"0 gallery a/a0\n0 gallery b/b0\n0 probe c/c0\n0 probe d/d0\n",
			"split 0 has strangers' probes only"},
	} {
		_, err := ReadSplits(strings.NewReader(OpenSetMark+"\n"+tc.body), "s.txt", d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestWriteSplits checks that ReadSplits reads back the splits
// WriteSplits wrote, strangers (probe classes without gallery sets),
// visitors and others included, and that it refuses what a split file
// cannot say.
func TestWriteSplits(t *testing.T) {
	d := toyData(7, 4, 4)
	for _, in := range []string{"gallery=2,probe=2,splits=3,strangers=2", "gallery=2,probe=2,splits=3,strangers=4,visitors=1,others=2"} {
		splits, text := writtenSplits(t, in, d, 7)
		if strings.Contains(in, "others") && (!strings.Contains(text, " visitor ") || !strings.Contains(text, " other ")) {
			t.Errorf("%s: no visitor or other lines:\n%s", in, text)
		}
		got, err := ReadSplits(strings.NewReader(text), "s.txt", d)
		if err != nil {
			t.Fatalf("%s: %v\n%s", in, err, text)
		}
		checkReadBack(t, in, d, got, splits)
	}
	splits, err := Protocol{Kind: RandomSplits, Gallery: 2, Probe: 2, Splits: 1}.MakeSplits(d, 7)
	if err != nil {
		t.Fatal(err)
	}
	pooled := *d
	pooled.Pooled = true
	if err := WriteSplits(&strings.Builder{}, splits, &pooled); err == nil || !strings.Contains(err.Error(), "leave") {
		t.Errorf("pooled: %v, want an error that says what to leave out", err)
	}
}

// writtenSplits returns the splits of d that protocol in makes with
// seed, and the split file WriteSplits writes of them.
func writtenSplits(t *testing.T, in string, d *Data, seed uint64) ([]Split, string) {
	t.Helper()
	p, err := ParseProtocol(in)
	if err != nil {
		t.Fatal(err)
	}
	splits, err := p.MakeSplits(d, seed)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteSplits(&b, splits, d); err != nil {
		t.Fatal(err)
	}
	return splits, b.String()
}

// checkReadBack checks that the splits got, read back from a split
// file, are the splits written: the same gallery, probe, visitor and
// other sets, and as strangers the probe classes without gallery sets.
func checkReadBack(t *testing.T, in string, d *Data, got, splits []Split) {
	t.Helper()
	if len(got) != len(splits) {
		t.Fatalf("%s: %d splits read back, want %d", in, len(got), len(splits))
	}
	for k, sp := range splits {
		if !slices.Equal(got[k].Gallery, sp.Gallery) || !slices.Equal(got[k].Probe, sp.Probe) {
			t.Errorf("%s: split %d read back as gallery %v probe %v, want %v %v", in, k, got[k].Gallery, got[k].Probe, sp.Gallery, sp.Probe)
		}
		if !slices.Equal(got[k].Strangers, sp.Strangers) || !slices.Equal(got[k].Visitors, sp.Visitors) || !slices.Equal(got[k].Others, sp.Others) {
			t.Errorf("%s: split %d read back with strangers %v, visitors %v, others %v; want %v, %v, %v", in, k, got[k].Strangers, got[k].Visitors, got[k].Others, sp.Strangers, sp.Visitors, sp.Others)
		}
		inGallery := map[int]bool{}
		for _, i := range got[k].Gallery {
			inGallery[d.Labels[i]] = true
		}
		var strangers []int
		for _, i := range got[k].Probe {
			if c := d.Labels[i]; !inGallery[c] && !slices.Contains(strangers, c) {
				strangers = append(strangers, c)
			}
		}
		slices.Sort(strangers)
		if !slices.Equal(strangers, sp.Strangers) {
			t.Errorf("%s: split %d: the file's probe classes without gallery sets are %v, want the strangers %v", in, k, strangers, sp.Strangers)
		}
	}
}

// TestReadSplitsGivenRefuses: ReadSplits refuses visitor and other sets
// that visitors=V and others=O could not have made, saying what is
// wrong; a hand-written file of them needs no open-set mark.
func TestReadSplitsGivenRefuses(t *testing.T) {
	d := toyData(6, 2, 4) // classes a … f; sets x0, x1
	const base = "0 gallery a/a0\n0 gallery b/b0\n0 gallery c/c0\n0 probe a/a1\n0 probe e/e0\n"
	sp, err := ReadSplits(strings.NewReader(base+"0 other d/d0\n0 other d/d1\n0 visitor f/f0\n"), "s.txt", d)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp) != 1 || !slices.Equal(sp[0].Strangers, []int{3, 4, 5}) || !slices.Equal(sp[0].Others, []int{3}) || !slices.Equal(sp[0].Visitors, []int{5}) {
		t.Errorf("unmarked file with others and a visitor: %+v", sp)
	}
	for _, tc := range []struct {
		name, body, want string
	}{
		{"an other with gallery sets", base + "0 other c/c1\n", `class "c" gallery sets and other sets: an other is a stranger to the split's model`},
		{"an other with probe sets", base + "0 other e/e1\n", `class "e" probe sets and other sets: an other's sets go to training`},
		{"a visitor and other", base + "0 visitor d/d0\n0 other d/d1\n", `class "d" is given as a visitor and as an other`},
		{"no stranger at the door", "0 gallery a/a0\n0 gallery b/b0\n0 gallery c/c0\n0 probe a/a1\n0 other d/d0\n", "at least one must come to the door"},
		{"unlike other counts", base + "0 other d/d0\n1 gallery a/a0\n1 gallery b/b0\n1 gallery c/c0\n1 probe a/a1\n1 probe e/e0\n1 probe d/d0\n",
			"split 1 has 0 visitor and 0 other classes and split 0 has 0 and 1"},
		{"visitors with two known", "0 gallery a/a0\n0 gallery b/b0\n0 probe a/a1\n0 probe e/e0\n0 visitor f/f0\n", "visitors need at least 3"},
		{"a role unknown", base + "0 guest d/d0\n", `role "guest": want gallery, probe, visitor or other`},
	} {
		_, err := ReadSplits(strings.NewReader(tc.body), "s.txt", d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestSplitFileNeedsReadSplits: MakeSplits does no I/O, so a split-file
// protocol says to use ReadSplits, which refuses pooled data.
func TestSplitFileNeedsReadSplits(t *testing.T) {
	d := toyData(2, 3, 4)
	p, err := ParseProtocol("file=s.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.MakeSplits(d, 1); err == nil || !strings.Contains(err.Error(), "ReadSplits") {
		t.Errorf("MakeSplits of %v: err = %v", p, err)
	}
	d.Pooled = true
	if _, err := ReadSplits(strings.NewReader("0 gallery a/a0\n0 probe a/a1\n"), "s.txt", d); err == nil || !strings.Contains(err.Error(), "pooled") {
		t.Errorf("ReadSplits of pooled data: err = %v", err)
	}
}

// TestSmallestGallery: the gallery sets of the smallest class in a
// protocol's splits, which set the frame budget (method.FrameBudget).
func TestSmallestGallery(t *testing.T) {
	labels := []int{0, 0, 0, 1, 1} // smallest class: 2 sets
	if n := method.SmallestClass(labels); n != 2 {
		t.Errorf("smallest class %d, want 2", n)
	}
	for _, c := range []struct {
		proto  string
		pooled bool
		want   int
	}{
		{"gallery=3,probe=1,splits=2", false, 3},
		{"gallery=3,probe=1,splits=2", true, 1},
		{"loo", false, 1},
		{"file=x.json", false, 1},
	} {
		p, err := ParseProtocol(c.proto)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.SmallestGallery(labels, c.pooled); got != c.want {
			t.Errorf("%s (pooled %v): %d gallery sets, want %d", c.proto, c.pooled, got, c.want)
		}
	}
}

func TestParseProtocolStrangers(t *testing.T) {
	p, err := ParseProtocol("gallery=2,probe=3,splits=4,strangers=1")
	if want := (Protocol{Kind: RandomSplits, Gallery: 2, Probe: 3, Splits: 4, Strangers: 1}); err != nil || p != want {
		t.Fatalf("got %+v, %v; want %+v", p, err, want)
	}
	for _, in := range []string{"gallery=2,probe=3,splits=4,strangers=1", "gallery=1,probe=rest,splits=8,strangers=3", "gallery=2,probe=2,splits=3"} {
		p, err := ParseProtocol(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.String() != in {
			t.Errorf("String of %q = %q", in, p.String())
		}
		if back, err := ParseProtocol(p.String()); err != nil || back != p {
			t.Errorf("round trip of %q: %+v, %v", in, back, err)
		}
	}
	if p, err := ParseProtocol("gallery=2,probe=2,strangers=0"); err != nil || p.Strangers != 0 || strings.Contains(p.String(), "strangers") {
		t.Errorf("strangers=0: %+v (%q), %v", p, p.String(), err)
	}
	// visitors=0 and others=0 are none, as strangers=0 is.
	if p, err := ParseProtocol("gallery=2,probe=2,strangers=3,visitors=0,others=0"); err != nil || p.Strangers != 3 || p.Visitors != 0 || p.Others != 0 {
		t.Errorf("visitors=0,others=0: %+v, %v", p, err)
	}
	// A split file's path is the rest of the string: "strangers=" in a
	// folder's name is not the key.
	for _, path := range []string{"/data/strangers=2/splits.txt", "a,b/strangers=1", "/d/a,strangers=2/s.txt"} {
		if p, err := ParseProtocol("file=" + path); err != nil || p.Kind != SplitFile || p.File != path {
			t.Errorf("file=%s: %+v, %v", path, p, err)
		}
	}
	for _, bad := range []string{"loo,strangers=1", "strangers=1,loo", "file=x.txt,strangers=1", "gallery=2,probe=2,strangers=-1", "gallery=2,probe=2,strangers=x"} {
		_, err := ParseProtocol(bad)
		if err == nil {
			t.Errorf("ParseProtocol(%q) accepted", bad)
			continue
		}
		if strings.Contains(bad, "loo") || strings.Contains(bad, "file") {
			if !strings.Contains(err.Error(), "random splits") {
				t.Errorf("ParseProtocol(%q): %v, want a word on random splits", bad, err)
			}
		}
	}
	d := toyData(4, 3, 4)
	for _, p := range []Protocol{{Kind: LeaveOneOut, Strangers: 1}, {Kind: SplitFile, File: "x", Strangers: 1}} {
		if _, err := p.MakeSplits(d, 1); err == nil || !strings.Contains(err.Error(), "random splits") {
			t.Errorf("%+v: %v, want a refusal of strangers", p, err)
		}
	}
}

// checkStrangers checks the splits of a protocol with strangers: each
// split's strangers are K classes, none of whose sets is in its gallery
// while every other class is, and whose probes are there. It returns how
// often each class was a stranger.
func checkStrangers(t *testing.T, splits []Split, k, classes int) []int {
	t.Helper()
	count := make([]int, classes)
	for s, sp := range splits {
		if len(sp.Strangers) != k {
			t.Fatalf("split %d: strangers %v, want %d", s, sp.Strangers, k)
		}
		inGallery := map[int]bool{}
		for _, i := range sp.Gallery {
			inGallery[sp.Labels[i]] = true
		}
		inProbe := map[int]bool{}
		for _, i := range sp.Probe {
			inProbe[sp.Labels[i]] = true
		}
		for c := range classes {
			if sp.IsStranger(c) == inGallery[c] {
				t.Errorf("split %d: class %d stranger %v, in the gallery %v", s, c, sp.IsStranger(c), inGallery[c])
			}
			if !inProbe[c] {
				t.Errorf("split %d: class %d has no probe set", s, c)
			}
		}
		for _, c := range sp.Strangers {
			count[c]++
		}
	}
	return count
}

func TestStrangerSplits(t *testing.T) {
	const classes = 5
	d := toyData(classes, 4, 4)
	p := Protocol{Kind: RandomSplits, Gallery: 2, Probe: 2, Splits: classes, Strangers: 1}
	splits, err := p.MakeSplits(d, 3)
	if err != nil {
		t.Fatal(err)
	}
	// With K = 1 and S = C, every class is the stranger once.
	for c, n := range checkStrangers(t, splits, 1, classes) {
		if n != 1 {
			t.Errorf("class %d was the stranger %d times, want 1", c, n)
		}
	}
	// The known classes draw their sets as without strangers.
	closed := p
	closed.Strangers = 0
	plain, err := closed.MakeSplits(d, 3)
	if err != nil {
		t.Fatal(err)
	}
	for s, sp := range splits {
		var want []int
		for _, i := range plain[s].Gallery {
			if !sp.IsStranger(d.Labels[i]) {
				want = append(want, i)
			}
		}
		if !slices.Equal(sp.Gallery, want) || !slices.Equal(sp.Probe, plain[s].Probe) || plain[s].Strangers != nil {
			t.Errorf("split %d: gallery %v probe %v; closed set's %v %v", s, sp.Gallery, sp.Probe, plain[s].Gallery, plain[s].Probe)
		}
	}
	// K = 2 with more splits than C/K: the rotation wraps round, each
	// class a stranger twice in 5 splits of 2.
	p2 := Protocol{Kind: RandomSplits, Gallery: 1, Probe: 2, Splits: classes, Strangers: 2}
	splits, err = p2.MakeSplits(d, 3)
	if err != nil {
		t.Fatal(err)
	}
	for c, n := range checkStrangers(t, splits, 2, classes) {
		if n != 2 {
			t.Errorf("K=2: class %d was a stranger %d times, want 2", c, n)
		}
	}
	// At least two known classes.
	for _, k := range []int{classes - 1, classes} {
		bad := Protocol{Kind: RandomSplits, Gallery: 1, Probe: 1, Splits: 1, Strangers: k}
		if _, err := bad.MakeSplits(d, 1); err == nil || !strings.Contains(err.Error(), "2 known classes") {
			t.Errorf("strangers=%d of %d classes: %v", k, classes, err)
		}
	}
}

// TestStrangerSplitsTakeDisjointGroups checks that split s takes the K
// stranger classes at positions s·K … s·K+K−1 of the rotation: with C = 6
// classes, K = 2 and S = 3 splits the groups are disjoint, so every class
// is a stranger once, none twice and none never.
func TestStrangerSplitsTakeDisjointGroups(t *testing.T) {
	const classes, k = 6, 2
	d := toyData(classes, 3, 4)
	p := Protocol{Kind: RandomSplits, Gallery: 1, Probe: 2, Splits: classes / k, Strangers: k}
	splits, err := p.MakeSplits(d, 7)
	if err != nil {
		t.Fatal(err)
	}
	for c, n := range checkStrangers(t, splits, k, classes) {
		if n != 1 {
			t.Errorf("class %d was a stranger %d times in %d splits of %d, want 1", c, n, len(splits), k)
		}
	}
}

func TestPooledStrangerSplits(t *testing.T) {
	const classes = 4
	rng := rand.New(rand.NewPCG(63, 64))
	d := &Data{Pooled: true}
	for c := range classes {
		x := mat.NewDense(10, 2, nil)
		for i := range 10 {
			x.SetRow(i, []float64{float64(c), rng.Float64()})
		}
		d.Classes = append(d.Classes, string(rune('a'+c)))
		d.Sets = append(d.Sets, x)
		d.Labels = append(d.Labels, c)
	}
	p := Protocol{Kind: RandomSplits, Gallery: 4, Probe: 0, Splits: classes, Strangers: 1}
	splits, err := p.MakeSplits(d, 5)
	if err != nil {
		t.Fatal(err)
	}
	for c, n := range checkStrangers(t, splits, 1, classes) {
		if n != 1 {
			t.Errorf("class %d was the stranger %d times, want 1", c, n)
		}
	}
	for s, sp := range splits {
		sets := sp.AllSets()
		if len(sp.Gallery) != classes-1 || len(sp.Probe) != classes || len(sets) != 2*classes-1 {
			t.Errorf("split %d: %d sets, gallery %v, probe %v", s, len(sets), sp.Gallery, sp.Probe)
		}
		for _, i := range sp.Probe {
			if n, _ := sets[i].Dims(); n != 6 {
				t.Errorf("split %d: probe of %d frames, want the 6 left", s, n)
			}
		}
	}
}

// splitsGiving returns the splits of p over d, and those of p without
// its visitors and others: the stranger classes that give training sets.
func splitsGiving(t *testing.T, p Protocol, d *Data, seed uint64) (splits, without []Split) {
	t.Helper()
	splits, err := p.MakeSplits(d, seed)
	if err != nil {
		t.Fatal(err)
	}
	plain := p
	plain.Visitors, plain.Others = 0, 0
	if without, err = plain.MakeSplits(d, seed); err != nil {
		t.Fatal(err)
	}
	return splits, without
}

// TestVisitorSplits: visitors=V marks V of each split's K stranger
// classes, and changes nothing else of the splits.
func TestVisitorSplits(t *testing.T) {
	in := "gallery=2,probe=2,splits=5,strangers=3,visitors=1"
	p, err := ParseProtocol(in)
	if want := (Protocol{Kind: RandomSplits, Gallery: 2, Probe: 2, Splits: 5, Strangers: 3, Visitors: 1}); err != nil || p != want || p.String() != in {
		t.Fatalf("ParseProtocol(%q) = %+v (%q), %v; want %+v", in, p, p.String(), err, want)
	}
	for _, bad := range []string{"gallery=2,probe=2,splits=5,strangers=3,visitors=3", "gallery=2,probe=2,splits=5,visitors=1", "gallery=2,probe=2,strangers=3,visitors=-1"} {
		if _, err := ParseProtocol(bad); err == nil {
			t.Errorf("ParseProtocol(%q) accepted", bad)
		}
	}
	if _, err := (Protocol{Kind: RandomSplits, Gallery: 1, Probe: 1, Splits: 1, Strangers: 2, Visitors: 2}).MakeSplits(toyData(6, 3, 4), 1); err == nil {
		t.Error("MakeSplits with as many visitors as strangers accepted")
	}
	const classes = 7
	splits, without := splitsGiving(t, p, toyData(classes, 4, 4), 3)
	visited := map[int]int{}
	for s, sp := range splits {
		w := without[s]
		if !slices.Equal(sp.Gallery, w.Gallery) || !slices.Equal(sp.Probe, w.Probe) || !slices.Equal(sp.Strangers, w.Strangers) || w.Visitors != nil {
			t.Errorf("split %d: visitors changed the split: %+v against %+v", s, sp, w)
		}
		if len(sp.Visitors) != 1 || !sp.IsStranger(sp.Visitors[0]) || !sp.IsVisitor(sp.Visitors[0]) {
			t.Errorf("split %d: visitors %v of strangers %v, want one of them", s, sp.Visitors, sp.Strangers)
		}
		for _, c := range sp.Visitors {
			visited[c]++
		}
	}
	if len(visited) < 3 {
		t.Errorf("over 5 splits the visitors were the classes %v: they rotate with the strangers", visited)
	}
	// The visitors are the first V of the split's K positions in the
	// rotation, not any V of its strangers.
	order := p.strangerOrder(classes, 3)
	for s, sp := range splits {
		if want := order[(s*p.Strangers)%classes]; !slices.Equal(sp.Visitors, []int{want}) {
			t.Errorf("split %d: visitors %v, want %v, the first of its stranger positions", s, sp.Visitors, []int{want})
		}
	}
}

// TestOtherSplits: others=O marks O of each split's K stranger classes,
// the positions after the visitors', and changes nothing else of the
// splits.
func TestOtherSplits(t *testing.T) {
	in := "gallery=2,probe=2,splits=5,strangers=4,visitors=1,others=2"
	p, err := ParseProtocol(in)
	if want := (Protocol{Kind: RandomSplits, Gallery: 2, Probe: 2, Splits: 5, Strangers: 4, Visitors: 1, Others: 2}); err != nil || p != want || p.String() != in {
		t.Fatalf("ParseProtocol(%q) = %+v (%q), %v; want %+v", in, p, p.String(), err, want)
	}
	for _, bad := range []string{"gallery=2,probe=2,strangers=3,visitors=1,others=2", "gallery=2,probe=2,strangers=3,others=3", "gallery=2,probe=2,others=1", "gallery=2,probe=2,strangers=3,others=-1"} {
		if _, err := ParseProtocol(bad); err == nil {
			t.Errorf("ParseProtocol(%q) accepted", bad)
		}
	}
	const classes = 9
	splits, without := splitsGiving(t, p, toyData(classes, 4, 4), 3)
	order := p.strangerOrder(classes, 3)
	for s, sp := range splits {
		w := without[s]
		if !slices.Equal(sp.Gallery, w.Gallery) || !slices.Equal(sp.Probe, w.Probe) || !slices.Equal(sp.Strangers, w.Strangers) || w.Others != nil {
			t.Errorf("split %d: others changed the split: %+v against %+v", s, sp, w)
		}
		want := []int{order[(s*p.Strangers+1)%classes], order[(s*p.Strangers+2)%classes]}
		slices.Sort(want)
		if !slices.Equal(sp.Others, want) {
			t.Errorf("split %d: others %v, want %v, the two stranger positions after the visitor's", s, sp.Others, want)
		}
		for _, c := range sp.Others {
			if !sp.IsStranger(c) || !sp.IsOther(c) || sp.IsVisitor(c) {
				t.Errorf("split %d: other %d: stranger %v, visitor %v", s, c, sp.IsStranger(c), sp.IsVisitor(c))
			}
		}
	}
}

// TestStrangersOutOfRangeSaySo: strangers=K below 0 says that 0 (a
// closed set) is taken, and K at or above the number of classes says
// that no class is left known, where it said "≥ 1" and "leaves -1 known".
func TestStrangersOutOfRangeSaySo(t *testing.T) {
	if _, err := ParseProtocol("gallery=2,probe=2,strangers=-1"); err == nil || !strings.Contains(err.Error(), "≥ 0") {
		t.Errorf("strangers=-1: %v, want it to say K ≥ 0", err)
	}
	d := toyData(5, 4, 4)
	for _, k := range []int{5, 6} {
		_, err := Protocol{Kind: RandomSplits, Gallery: 2, Probe: 2, Splits: 1, Strangers: k}.MakeSplits(d, 1)
		if err == nil || strings.Contains(err.Error(), "leaves -") || strings.Contains(err.Error(), "leaves 0") || !strings.Contains(err.Error(), "no class known") || !strings.Contains(err.Error(), "K ≤ 3") {
			t.Errorf("strangers=%d of 5 classes: %v", k, err)
		}
	}
}

// TestVisitorsNeedThreeKnown: visitors' sets go to training as strangers'
// sets, which the threshold counts beside stand-in strangers, and the
// stand-in folds need three known classes (a stranger and two known in
// each): a protocol that leaves two known classes with visitors is
// refused before any split is run, and says what to give instead, where
// every method failed on every split after running them all.
func TestVisitorsNeedThreeKnown(t *testing.T) {
	d := toyData(5, 4, 4)
	p := Protocol{Kind: RandomSplits, Gallery: 2, Probe: 2, Splits: 2, Strangers: 3, Visitors: 1}
	_, err := p.MakeSplits(d, 1)
	if err == nil || !strings.Contains(err.Error(), "3 known classes") || !strings.Contains(err.Error(), "strangers=K needs K ≤ 2") {
		t.Errorf("visitors with 2 known classes of 5: %v, want a refusal that says K ≤ 2", err)
	}
	p.Strangers = 2 // 3 known
	if _, err := p.MakeSplits(d, 1); err != nil {
		t.Errorf("visitors with 3 known classes: %v", err)
	}
	p.Visitors = 0
	p.Strangers = 3 // 2 known, no visitors: the fallback calibration serves
	if _, err := p.MakeSplits(d, 1); err != nil {
		t.Errorf("2 known classes without visitors: %v", err)
	}
	// Four classes leave no room for visitors at all (K ≥ 2 with them).
	p.Strangers, p.Visitors = 2, 1
	if _, err := p.MakeSplits(toyData(4, 4, 4), 1); err == nil || !strings.Contains(err.Error(), "visitors need 5 classes or more") {
		t.Errorf("visitors with 4 classes: %v, want a refusal that says 5 classes are needed", err)
	}
}

// TestPooledSplitsHoldNoCopies: the splits of pooled data hold which
// frames each set draws, not copies of them: 200 splits of ten classes of
// 40 frames × 512 features hold far less than the data (they held 199
// times the data, all of it before any method ran); AllSets draws the
// same frames at every call.
func TestPooledSplitsHoldNoCopies(t *testing.T) {
	const classes, frames, dim = 10, 40, 512
	d := &Data{Pooled: true}
	rng := rand.New(rand.NewPCG(5, 6))
	for c := range classes {
		d.Classes = append(d.Classes, string(rune('a'+c)))
		d.Sets = append(d.Sets, testutil.RandSet(rng, frames, dim, float64(c), 1))
		d.Labels = append(d.Labels, c)
	}
	data := int64(classes * frames * dim * 8)
	p, err := ParseProtocol("gallery=20,probe=20,splits=200")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	splits, err := p.MakeSplits(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > data {
		t.Errorf("200 splits hold %d KiB for %d KiB of data", held>>10, data>>10)
	}
	a, b := splits[7].AllSets(), splits[7].AllSets()
	for i := range a {
		if !mat.Equal(a[i], b[i]) {
			t.Fatalf("set %d of split 8 drawn twice differs", i)
		}
	}
	runtime.KeepAlive(splits)
}

// TestSplitFileNamesWithSpaces: a class or set folder whose name holds
// spaces ("Ana Lima") is written to a split file and read back, where the
// reader split the line at every space and refused it; a name a line
// cannot hold (a line break) is refused by the writer.
func TestSplitFileNamesWithSpaces(t *testing.T) {
	d := toyData(3, 4, 4)
	for i, n := range d.Names {
		d.Names[i] = "Ana Lima " + n
		if i%2 == 1 {
			d.Names[i] += " " // ends in a space, kept when a set has it
		}
	}
	const in = "gallery=2,probe=2,splits=2,strangers=1"
	splits, text := writtenSplits(t, in, d, 3)
	got, err := ReadSplits(strings.NewReader(strings.ReplaceAll(text, "\n", "\r\n")), "s.txt", d)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	checkReadBack(t, in, d, got, splits)
	// A hand-written file: a tab between the fields, trailing blanks.
	hand := "1\tgallery  Ana Lima a/a0 \t\n1 gallery Ana Lima b/b0 \n1 probe Ana Lima a/a2 \n1 probe Ana Lima b/b2\n"
	if _, err := ReadSplits(strings.NewReader(hand), "hand.txt", d); err != nil {
		t.Errorf("hand-written file: %v", err)
	}
	if _, err := ReadSplits(strings.NewReader("1 gallery\n"), "short.txt", d); err == nil || !strings.Contains(err.Error(), "want") {
		t.Errorf("a line without a name: %v", err)
	}
	d.Names[0] = "a/line\nbreak"
	if err := WriteSplits(&strings.Builder{}, splits, d); err == nil || !strings.Contains(err.Error(), "line break") {
		t.Errorf("a name with a line break: %v", err)
	}
}

// TestReadSplitsRefusesManySplitsEarly: a split file of more than
// MaxSplits splits is refused at the line that opens one too many, which
// it names, and reading it costs memory in proportion to the text read,
// not to the splits the whole file would open (kept until the end of
// the file, 200,000 splits of a 4 MB file take 75 MB).
func TestReadSplitsRefusesManySplitsEarly(t *testing.T) {
	d := toyData(4, 3, 2)
	var b strings.Builder
	for i := range 200000 {
		b.WriteString(strconv.Itoa(i) + " gallery a/a0\n")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadSplits(strings.NewReader(b.String()), "s.txt", d)
	runtime.ReadMemStats(&after)
	if want := "s.txt:1001: split 1000 is one more than the 1000 a split file may hold"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("refusing a file of %d bytes allocated %d bytes", b.Len(), n)
	}
}
