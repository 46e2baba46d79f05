package match_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"setmatch/match"
	"setmatch/setfile"
)

// testvectorDir holds reference values computed independently from the
// paper's formulas: pairs of sets (.npy) and, in expected.json, their
// bandwidth and divergences. A missing file fails the test.
const testvectorDir = "testdata/divergence"

type vector struct {
	A, B       string
	Bandwidth  float64
	Hellinger2 float64
	Jeffrey    float64
}

func TestReferenceVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testvectorDir, "expected.json"))
	if err != nil {
		t.Fatalf("reference vectors: %v", err)
	}
	var vectors map[string]vector
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(vectors))
	for name := range vectors {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("no vectors in expected.json")
	}
	for _, name := range names {
		v := vectors[name]
		t.Run(name, func(t *testing.T) {
			a, err := setfile.ReadFile(filepath.Join(testvectorDir, v.A), setfile.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			b, err := setfile.ReadFile(filepath.Join(testvectorDir, v.B), setfile.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			p, err := match.NewKDE(a, v.Bandwidth)
			if err != nil {
				t.Fatal(err)
			}
			q, err := match.NewKDE(b, v.Bandwidth)
			if err != nil {
				t.Fatal(err)
			}
			pair, err := match.Compare(p, q)
			if err != nil {
				t.Fatal(err)
			}
			g, err := match.NewGallery([]*match.KDE{p})
			if err != nil {
				t.Fatal(err)
			}
			gal, err := g.Compare(q, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []struct {
				how string
				d   match.Divergences
			}{{"pairwise", pair}, {"gallery", gal[0]}} {
				if !agree(got.d.Hellinger2, v.Hellinger2) || !agree(got.d.Jeffrey, v.Jeffrey) {
					t.Errorf("%s: H2 = %.17g, J = %.17g; want %.17g, %.17g",
						got.how, got.d.Hellinger2, got.d.Jeffrey, v.Hellinger2, v.Jeffrey)
				}
			}
		})
	}
}

// agree is the tolerance of the reference vectors: 1e-9 relative, 1e-12
// absolute near zero.
func agree(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12+1e-9*math.Abs(want)
}
