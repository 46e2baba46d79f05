package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

// benchResult is what `setmatch bench` reports; the JSON keys are stable.
type benchResult struct {
	Mode          string  `json:"mode"`
	Gallery       int     `json:"gallery_sets"`
	Frames        int     `json:"frames_per_set"`
	Dim           int     `json:"dim"`
	QueryFrames   int     `json:"query_frames"`
	Bandwidth     string  `json:"bandwidth"`
	Queries       int     `json:"queries"`
	Workers       int     `json:"workers"`
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

// benchSynopsis is the usage line and description of setmatch bench.
const benchSynopsis = `[--mode match|train] [flags] | train [flags]

Times setmatch on generated data on this machine. --mode match: the
gallery matcher, as setmatchd runs it, for one batch against m gallery
sets (ms per query, median and p99, memory per query). --mode train: one
training run of W (seconds per conjugate-gradient iteration and in all,
shaped like the paper's YouTube Celebrities protocol by default).
setmatch bench train (setmatch bench train --help): the whole of
setmatch train, with its defaults, on synthetic data of given sizes
(time, peak memory, the model's accuracy on held-out sets).`

func runBench(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "train" {
		return runBenchTrainAuto(args[1:], stdout, stderr)
	}
	fs := newFlagSet("bench", benchSynopsis, stderr)
	mode := fs.String("mode", "match", "what to time: match (the gallery matcher) or train (one training run)")
	gallery := fs.Int("gallery", 1000, "match: number of gallery sets m")
	frames := fs.Int("frames", 100, "frames per gallery set")
	dim := fs.Int("dim", 20, "match: feature dimension d")
	queryFrames := fs.Int("query-frames", 100, "match: frames in the query set")
	bw := fs.String("bandwidth", "", "KDE bandwidth: a number, or a rule (nn, scott, silverman, optionally *SCALE); default 1 for match, nn for train")
	queries := fs.Int("queries", 30, "match: number of timed queries")
	workers := fs.Int("workers", 0, "goroutines (0: one per CPU)")
	seed := fs.Uint64("seed", 1, "random seed for the generated data")
	asJSON := fs.Bool("json", false, "print one JSON object")
	classes := fs.Int("classes", 47, "train: number of classes")
	sets := fs.Int("sets", 3, "train: sets per class")
	inDim := fs.Int("in-dim", 400, "train: input dimension D")
	outDim := fs.Int("out-dim", 20, "train: learned dimension d")
	maxIter := fs.Int("max-iter", 25, "train: iteration cap")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("bench takes no arguments, got %q", fs.Args())
	}
	if *bw == "" {
		*bw = map[string]string{"train": "nn"}[*mode]
		if *bw == "" {
			*bw = "1"
		}
	}
	rule, err := match.ParseBandwidthRule(*bw)
	if err != nil {
		return usagef("--bandwidth: %v", err)
	}
	switch *mode {
	case "match":
		return benchMatch(stdout, stderr, benchMatchOptions{
			gallery: *gallery, frames: *frames, dim: *dim, queryFrames: *queryFrames, queries: *queries,
			workers: *workers, seed: *seed, rule: rule, json: *asJSON,
		})
	case "train":
		return benchTrain(stdout, stderr, benchTrainOptions{
			classes: *classes, sets: *sets, frames: *frames, inDim: *inDim, outDim: *outDim,
			maxIter: *maxIter, workers: *workers, seed: *seed, rule: rule, json: *asJSON,
		})
	default:
		return usagef("--mode must be match or train, got %q", *mode)
	}
}

type benchMatchOptions struct {
	gallery, frames, dim, queryFrames, queries, workers int
	seed                                                uint64
	rule                                                match.BandwidthRule
	json                                                bool
}

// benchMatch times queries against a gallery matcher of generated sets:
// each set is Gaussian with unit variance around its own random mean.
func benchMatch(stdout, stderr io.Writer, o benchMatchOptions) error {
	for name, v := range map[string]int{"--gallery": o.gallery, "--frames": o.frames, "--dim": o.dim, "--query-frames": o.queryFrames, "--queries": o.queries} {
		if v < 1 {
			return usagef("%s must be at least 1, got %d", name, v)
		}
	}
	if o.frames < 2 || o.queryFrames < 2 {
		return usagef("sets need at least 2 frames")
	}

	rng := rand.New(rand.NewPCG(o.seed, 0x5e7))
	fmt.Fprintf(stderr, "generating %d gallery sets of %d frames in %d dimensions...\n", o.gallery, o.frames, o.dim)
	var err error
	kdes := make([]*match.KDE, o.gallery)
	for k := range kdes {
		if kdes[k], err = match.NewKDERule(gaussianSet(rng, o.frames, o.dim, rng.Float64()), o.rule); err != nil {
			return err
		}
	}
	start := time.Now()
	g, err := match.NewGallery(kdes)
	if err != nil {
		return err
	}
	g.Workers = o.workers
	setup := time.Since(start)

	qs := make([]*match.KDE, o.queries)
	for i := range qs {
		if qs[i], err = match.NewKDERule(gaussianSet(rng, o.queryFrames, o.dim, 0.5), o.rule); err != nil {
			return err
		}
	}
	times, bytes, err := timeQueries(g, qs)
	if err != nil {
		return err
	}

	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	res := benchResult{
		Mode: "match", Gallery: o.gallery, Frames: o.frames, Dim: o.dim, QueryFrames: o.queryFrames,
		Bandwidth: o.rule.String(), Queries: o.queries, Workers: g.Workers,
		MsPerQuery:    ms(times[len(times)/2]),
		MsP99:         ms(times[min(len(times)-1, len(times)*99/100)]),
		MsMin:         ms(times[0]),
		BytesPerQuery: bytes,
		ScratchBytes:  g.ScratchBytes(o.queryFrames),
		SetupMs:       ms(setup),
		GOARCH:        runtime.GOARCH, CPU: cpuModel(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	if res.Workers == 0 {
		res.Workers = runtime.GOMAXPROCS(0)
	}
	res.UsPerDistance = res.MsPerQuery * 1000 / float64(o.gallery)
	if o.json {
		return json.NewEncoder(stdout).Encode(res)
	}
	res.print(stdout)
	return nil
}

// print writes r as the table of setmatch bench.
func (res benchResult) print(stdout io.Writer) {
	fmt.Fprintf(stdout, "gallery matcher: %d sets × %d frames, d = %d, query %d frames, bandwidth %s\n",
		res.Gallery, res.Frames, res.Dim, res.QueryFrames, res.Bandwidth)
	fmt.Fprintf(stdout, "machine: %s, %s, GOMAXPROCS %d, %d workers\n\n", res.CPU, res.GOARCH, res.GOMAXPROCS, res.Workers)
	fmt.Fprintf(stdout, "  %-28s %12.3f\n", "ms per query (median)", res.MsPerQuery)
	fmt.Fprintf(stdout, "  %-28s %12.3f\n", "ms per query (p99)", res.MsP99)
	fmt.Fprintf(stdout, "  %-28s %12.3f\n", "ms per query (fastest)", res.MsMin)
	fmt.Fprintf(stdout, "  %-28s %12.3f\n", "µs per distance (median)", res.UsPerDistance)
	fmt.Fprintf(stdout, "  %-28s %12d\n", "heap bytes per query", res.BytesPerQuery)
	fmt.Fprintf(stdout, "  %-28s %12d\n", "working memory per query", res.ScratchBytes)
	fmt.Fprintf(stdout, "  %-28s %12.1f\n", "gallery setup ms", res.SetupMs)
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

// gaussianSet returns n frames of d independent N(mean, 1) features.
func gaussianSet(rng *rand.Rand, n, d int, mean float64) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = mean + rng.NormFloat64()
	}
	return x
}

// cpuModel returns the CPU's model name on Linux, or "unknown".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
