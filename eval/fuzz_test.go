package eval

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseProtocol: any --protocol text is read or refused with an error
// that quotes it; a protocol read is written by String as text that reads
// to the same protocol.
func FuzzParseProtocol(f *testing.F) {
	for _, s := range []string{"gallery=5,probe=5,splits=10", "gallery=3,probe=rest", "loo", "file=x.txt",
		"gallery=2,probe=rest,splits=4,strangers=1", "gallery=2,probe=1,strangers=2,visitors=1", "gallery=2,probe=1,strangers=3,visitors=1,others=1", "loo,strangers=1",
		"file=", "gallery=0", "splits=1001", "gallery=1,probe=1,strangers=0", "gallery=-1", ",,", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProtocol(s)
		if err != nil {
			if !strings.Contains(err.Error(), "protocol") {
				t.Fatalf("error does not say it is the protocol: %v", err)
			}
			return
		}
		if p.Kind == RandomSplits && (p.Gallery < 1 || p.Probe < 0 || p.Splits < 1 || p.Splits > MaxSplits || p.Strangers < 0 || p.Visitors < 0 || (p.Visitors > 0 && p.Visitors >= p.Strangers) || p.Others < 0 || (p.Others > 0 && p.Visitors+p.Others >= p.Strangers)) {
			t.Fatalf("%q: %+v", s, p)
		}
		q, err := ParseProtocol(p.String())
		if err != nil || q != p {
			t.Fatalf("%q reads as %+v, written %q, which reads as %+v, %v", s, p, p.String(), q, err)
		}
	})
}

// FuzzReadSplits: any split file is read or refused with an error that
// names it; splits read name sets of the data, each split with gallery
// and probe sets, none twice.
func FuzzReadSplits(f *testing.F) {
	for _, s := range []string{
		"# two splits\n0 gallery a/a0\n0 gallery b/b0\n0 probe a/a1\n0 probe b/b2\n\n7 gallery a/a2\n7 gallery b/b1\n7 probe   a/a0\n",
		OpenSetMark + "\n0 gallery a/a0\n0 gallery b/b0\n0 probe a/a1\n0 probe c/c0\n",
		"0 gallery a/a0\n0 gallery b/b0\n0 probe a/a1\n0 probe c/c0\n0 other d/d0\n0 other d/d1\n",
		"0 gallery a/a0\n0 probe a/a0\n", "0 train a/a0\n", "x gallery a/a0\n", "", "-1 gallery a/a0\r\n-1 probe b/b1\r\n",
	} {
		f.Add(s)
	}
	d := toyData(4, 3, 2)
	f.Fuzz(func(t *testing.T, s string) {
		splits, err := ReadSplits(strings.NewReader(s), "s.txt", d)
		if err != nil {
			if !strings.Contains(err.Error(), "s.txt") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(splits) == 0 || len(splits) > MaxSplits {
			t.Fatalf("%d splits", len(splits))
		}
		for k, sp := range splits {
			if len(sp.Gallery) == 0 || len(sp.Probe) == 0 {
				t.Fatalf("split %d: %+v", k, sp)
			}
			seen := map[int]bool{}
			for _, i := range append(append([]int(nil), sp.Gallery...), sp.Probe...) {
				if i < 0 || i >= len(d.Sets) || seen[i] {
					t.Fatalf("split %d: set %d out of range or twice", k, i)
				}
				seen[i] = true
			}
			for _, c := range append(slices.Clone(sp.Visitors), sp.Others...) {
				if !sp.IsStranger(c) || (sp.IsVisitor(c) && sp.IsOther(c)) {
					t.Fatalf("split %d: class %d given to training but a stranger %v, or both a visitor and an other", k, c, sp.IsStranger(c))
				}
			}
		}
		var b strings.Builder
		if err := WriteSplits(&b, splits, d); err != nil {
			return
		}
		if _, err := ReadSplits(strings.NewReader(b.String()), "s.txt", d); err != nil {
			t.Fatalf("splits written by WriteSplits do not read back: %v\n%s", err, b.String())
		}
	})
}
