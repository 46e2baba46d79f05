package bench

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"setmatch/match"
	"setmatch/synth"
)

// MatchOptions configures Match: Gallery sets of Frames frames and a
// query of QueryFrames frames, all in Dim dimensions, Queries queries
// timed.
type MatchOptions struct {
	Gallery, Frames, Dim, QueryFrames, Queries, Workers int
	Seed                                                uint64
	Rule                                                match.BandwidthRule
}

// MatchResult is what `setmatch bench` reports; the JSON keys are stable.
type MatchResult struct {
	Mode          string  `json:"mode"`
	Gallery       int     `json:"gallery_sets"`
	Frames        int     `json:"frames_per_set"`
	Dim           int     `json:"dim"`
	QueryFrames   int     `json:"query_frames"`
	Bandwidth     string  `json:"bandwidth"`
	Queries       int     `json:"queries"`
	Workers       int     `json:"workers"`         // goroutines the matcher ran
	MsPerQuery    float64 `json:"ms_per_query"`    // median
	MsP99         float64 `json:"ms_p99"`          // 99th percentile
	MsMin         float64 `json:"ms_min"`          // fastest query
	UsPerDistance float64 `json:"us_per_distance"` // median / gallery size
	BytesPerQuery int64   `json:"bytes_per_query"` // heap bytes allocated per query
	ScratchBytes  int     `json:"scratch_bytes"`   // working memory per query
	SetupMs       float64 `json:"setup_ms"`        // gallery precomputation
	GOARCH        string  `json:"goarch"`
	CPU           string  `json:"cpu"`
	GOMAXPROCS    int     `json:"gomaxprocs"`
}

// Match times queries against a gallery matcher of generated sets: each
// set is Gaussian with unit variance around its own random mean
// (synth.GaussianSet). The options are taken as valid (≥ 1 of each, ≥ 2
// frames a set).
func Match(o MatchOptions) (MatchResult, error) {
	rng := rand.New(rand.NewPCG(o.Seed, 0x5e7))
	var err error
	kdes := make([]*match.KDE, o.Gallery)
	for k := range kdes {
		if kdes[k], err = match.NewKDERule(synth.GaussianSet(rng, o.Frames, o.Dim, rng.Float64()), o.Rule); err != nil {
			return MatchResult{}, err
		}
	}
	start := time.Now()
	g, err := match.NewGallery(kdes)
	if err != nil {
		return MatchResult{}, err
	}
	g.Workers = o.Workers
	setup := time.Since(start)

	qs := make([]*match.KDE, o.Queries)
	for i := range qs {
		if qs[i], err = match.NewKDERule(synth.GaussianSet(rng, o.QueryFrames, o.Dim, 0.5), o.Rule); err != nil {
			return MatchResult{}, err
		}
	}
	times, bytes, err := timeQueries(g, qs)
	if err != nil {
		return MatchResult{}, err
	}

	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	res := MatchResult{
		Mode: "match", Gallery: o.Gallery, Frames: o.Frames, Dim: o.Dim, QueryFrames: o.QueryFrames,
		Bandwidth: o.Rule.String(), Queries: o.Queries, Workers: g.Goroutines(),
		MsPerQuery:    ms(times[len(times)/2]),
		MsP99:         ms(times[min(len(times)-1, len(times)*99/100)]),
		MsMin:         ms(times[0]),
		BytesPerQuery: bytes,
		ScratchBytes:  g.ScratchBytes(o.QueryFrames),
		SetupMs:       ms(setup),
		GOARCH:        runtime.GOARCH, CPU: CPUModel(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	res.UsPerDistance = res.MsPerQuery * 1000 / float64(o.Gallery)
	return res, nil
}

// timeQueries compares every query with the gallery once after a warm-up
// and returns the times, sorted, and the heap bytes allocated per query.
func timeQueries(g *match.Gallery, qs []*match.KDE) ([]time.Duration, int64, error) {
	dst := make([]match.Divergences, g.Len())
	if _, err := g.Compare(qs[0], dst); err != nil { // warm up
		return nil, 0, err
	}
	times := make([]time.Duration, len(qs))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i, q := range qs {
		t := time.Now()
		if _, err := g.Compare(q, dst); err != nil {
			return nil, 0, err
		}
		times[i] = time.Since(t)
	}
	runtime.ReadMemStats(&after)
	slices.Sort(times)
	return times, int64(after.TotalAlloc-before.TotalAlloc) / int64(len(qs)), nil
}

// MaxValues bounds the numbers a benchmark generates (2 GiB of float64),
// as synth bounds a data set: larger sizes are refused before anything
// is allocated.
const MaxValues = 1 << 28

// Check reports whether o is a size Match can run: at least one of
// each, at least 2 frames a set, and the gallery and the queries within
// MaxValues numbers. Its errors are OptionErrors.
func (o MatchOptions) Check() error {
	for _, f := range []struct {
		field, what string
		v           int
	}{{"Gallery", "gallery sets", o.Gallery}, {"Frames", "frames per gallery set", o.Frames}, {"Dim", "features per frame", o.Dim},
		{"QueryFrames", "frames per query", o.QueryFrames}, {"Queries", "queries", o.Queries}} {
		if f.v < 1 {
			return optionErr([]string{f.field}, "%s must be at least 1, got %d", f.what, f.v)
		}
	}
	if o.Frames < 2 {
		return optionErr([]string{"Frames"}, "sets need at least 2 frames: a gallery set has %d", o.Frames)
	}
	if o.QueryFrames < 2 {
		return optionErr([]string{"QueryFrames"}, "sets need at least 2 frames: a query has %d", o.QueryFrames)
	}
	if v := (float64(o.Gallery)*float64(o.Frames) + float64(o.Queries)*float64(o.QueryFrames)) * float64(o.Dim); v > MaxValues {
		return optionErr([]string{"Gallery", "Frames", "Queries", "QueryFrames", "Dim"},
			"the gallery and the queries would be %.3g numbers ((gallery sets × frames per set + queries × frames per query) × features per frame), more than the %d (2 GiB) a benchmark generates: give smaller sizes", v, MaxValues)
	}
	return nil
}
