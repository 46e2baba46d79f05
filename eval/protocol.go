package eval

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/mat"

	"setmatch/method"
)

// Data is a labelled collection of sets to evaluate on.
type Data struct {
	Classes []string     // class names, Labels index into it
	Sets    []*mat.Dense // each n_i×D, rows are frames
	Labels  []int        // class of each set
	Names   []string     // "class/set" of each set, for split files
	// Pooled: each set is the pool of all frames of its class (ORL-style
	// data); the protocol draws the gallery and probe sets from it.
	Pooled bool
}

// ProtocolKind names a protocol.
type ProtocolKind int

const (
	RandomSplits ProtocolKind = iota // per class, random gallery and probe sets
	LeaveOneOut                      // each set in turn is the probe, all others the gallery
	SplitFile                        // splits read from a file
)

// MaxSplits is the most random splits a protocol may ask for.
const MaxSplits = 1000

// VisitorsMinKnown is the fewest known classes a split with visitors
// (Protocol.Visitors) may keep: training counts the visitors' sets
// beside stand-in strangers, and each stand-in fold leaves a class out
// and keeps two known (setmatch train --strangers needs three classes).
const VisitorsMinKnown = 3

// Protocol says how gallery (training) and probe (test) sets are drawn.
type Protocol struct {
	Kind    ProtocolKind
	Gallery int // sets per class (frames per set for pooled data)
	Probe   int // sets per class (frames for pooled data); 0 = all the rest
	Splits  int
	File    string
	// Strangers, for random splits, is the number K of classes left out
	// of the gallery in every split: their probe sets, drawn as for the
	// other classes (their gallery draw is discarded), are strangers'
	// probes, sets of classes the model does not hold. The stranger
	// classes rotate through a permutation of the classes drawn from the
	// seed: split s takes the K classes at positions s·K … s·K+K−1 (mod
	// C), so with K = 1 and S = C every class is the stranger once. 0: a
	// closed set, every class in every gallery.
	Strangers int
	// Visitors, with Strangers, is the number V < K of the stranger
	// classes (the first V of the K positions of a split) whose probe
	// sets are given to training as strangers' sets it must keep out
	// (setmatch train --strangers) instead of being decided: only the
	// other K − V classes come to the door. 0: none.
	Visitors int
	// Others, with Strangers, is the number O of the stranger classes
	// (the O positions after the visitors') whose probe sets are given
	// to training as others' sets (setmatch train --others: they shape
	// the method, then leave the gallery) instead of being decided; V + O
	// < K, so that a stranger class comes to the door. 0: none.
	Others int
}

// strangersKey matches the key strangers=K after a comma, at the end of a
// protocol or before another key.
var strangersKey = regexp.MustCompile(`,strangers=[0-9]*(,|$)`)

// ParseProtocol reads "gallery=G,probe=P,splits=S" (probe=rest for all the
// remaining sets), with ",strangers=K" to leave K classes out of every
// split's gallery (an open set), ",visitors=V" to give V of them to
// training as strangers' sets and ",others=O" to give O of them to
// training as others' sets; or "loo"; or "file=PATH", the path being
// the rest of the string.
func ParseProtocol(s string) (Protocol, error) {
	s = strings.TrimSpace(s)
	// A split file's path is the rest of the string, and may hold
	// "strangers=" as a folder's name: only a comma, the key and a number
	// ending the string or followed by another key (",strangers=2,…") is
	// the key, refused.
	if (s == "loo" || strings.HasPrefix(s, "loo,") || strings.HasPrefix(s, "file=")) && strangersKey.MatchString(s) {
		return Protocol{}, fmt.Errorf("protocol %q: strangers=K needs random splits (gallery=G,probe=P,splits=S,strangers=K): leave-one-out and split files choose their galleries themselves", s)
	}
	switch {
	case s == "loo":
		return Protocol{Kind: LeaveOneOut}, nil
	case strings.HasPrefix(s, "file="):
		if s[5:] == "" {
			return Protocol{}, errors.New("protocol file=: give a path")
		}
		return Protocol{Kind: SplitFile, File: s[5:]}, nil
	}
	p := Protocol{Kind: RandomSplits, Splits: 10, Probe: -1}
	for _, f := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		if (k == "loo" || k == "file") && strings.Contains(s, "strangers=") {
			return Protocol{}, fmt.Errorf("protocol %q: strangers=K needs random splits (gallery=G,probe=P,splits=S,strangers=K): leave-one-out and split files choose their galleries themselves", s)
		}
		if !ok {
			return Protocol{}, fmt.Errorf("protocol %q: %q is not key=value (want gallery=G,probe=P,splits=S, loo or file=PATH)", s, f)
		}
		if k == "probe" && v == "rest" {
			p.Probe = 0
			continue
		}
		n, err := strconv.Atoi(v)
		none := k == "strangers" || k == "visitors" || k == "others" // 0: none, as without the key
		if none && err == nil && n == 0 {
			continue
		}
		if err != nil || n < 1 {
			switch {
			case k == "strangers":
				return Protocol{}, fmt.Errorf("protocol %q: %s=%q must be a whole number ≥ 0 (0: a closed set)", s, k, v)
			case none:
				return Protocol{}, fmt.Errorf("protocol %q: %s=%q must be a whole number ≥ 0 (0: none)", s, k, v)
			}
			return Protocol{}, fmt.Errorf("protocol %q: %s=%q must be a whole number ≥ 1", s, k, v)
		}
		switch k {
		case "gallery":
			p.Gallery = n
		case "probe":
			p.Probe = n
		case "splits":
			if n > MaxSplits {
				return Protocol{}, fmt.Errorf("protocol %q: splits=%d: at most %d (every split trains every method; 10 is the paper's)", s, n, MaxSplits)
			}
			p.Splits = n
		case "strangers":
			p.Strangers = n
		case "visitors":
			p.Visitors = n
		case "others":
			p.Others = n
		default:
			return Protocol{}, fmt.Errorf("protocol %q: unknown key %q (want gallery, probe, splits, strangers, visitors, others)", s, k)
		}
	}
	if p.Gallery == 0 || p.Probe < 0 {
		return Protocol{}, fmt.Errorf("protocol %q: give gallery=G and probe=P (or probe=rest)", s)
	}
	if err := p.checkVisitors(); err != nil {
		return Protocol{}, fmt.Errorf("protocol %q: %w", s, err)
	}
	return p, nil
}

// checkVisitors refuses visitors=V and others=O unless V, O ≥ 0 and
// V + O < K = Strangers.
func (p Protocol) checkVisitors() error {
	if p.Visitors < 0 || (p.Visitors > 0 && p.Visitors >= p.Strangers) {
		return fmt.Errorf("visitors=%d must be fewer than strangers=%d: the visitors are stranger classes given to training, and at least one must be left to come to the door", p.Visitors, p.Strangers)
	}
	if p.Others < 0 || (p.Others > 0 && p.Visitors+p.Others >= p.Strangers) {
		return fmt.Errorf("visitors=%d and others=%d must add up to fewer than strangers=%d: both are stranger classes given to training, and at least one must be left to come to the door", p.Visitors, p.Others, p.Strangers)
	}
	return nil
}

// String returns the protocol as ParseProtocol reads it.
func (p Protocol) String() string {
	switch p.Kind {
	case LeaveOneOut:
		return "loo"
	case SplitFile:
		return "file=" + p.File
	}
	probe := "rest"
	if p.Probe > 0 {
		probe = strconv.Itoa(p.Probe)
	}
	s := fmt.Sprintf("gallery=%d,probe=%s,splits=%d", p.Gallery, probe, p.Splits)
	if p.Strangers > 0 {
		s += fmt.Sprintf(",strangers=%d", p.Strangers)
	}
	if p.Visitors > 0 {
		s += fmt.Sprintf(",visitors=%d", p.Visitors)
	}
	if p.Others > 0 {
		s += fmt.Sprintf(",others=%d", p.Others)
	}
	return s
}

// Split is one gallery/probe partition: the sets to use and which of them
// are gallery and probe (indices into Sets, or for pooled data into the
// sets AllSets draws).
type Split struct {
	// Sets are the data's sets; nil for pooled data, whose sets each
	// split draws from the pools (AllSets).
	Sets    []*mat.Dense
	Labels  []int
	Gallery []int
	Probe   []int
	// Strangers are the classes (ids, increasing) left out of the gallery
	// by a protocol with strangers=K: none of their sets is in Gallery,
	// and their probe sets are strangers' probes. Nil for a closed set.
	Strangers []int
	// Visitors are those of Strangers (ids, increasing) whose probe sets
	// go to training as strangers' sets (Protocol.Visitors) and are not
	// decided. Nil without visitors=V.
	Visitors []int
	// Others are those of Strangers (ids, increasing) whose probe sets go
	// to training as others' sets (Protocol.Others) and are not decided.
	// Nil without others=O.
	Others []int

	// drawn is, for pooled data, the pool and the rows of each of the
	// split's sets: AllSets copies them out for the split in hand, so that
	// a run of many splits holds one split's copies, not every split's.
	drawn []pooledSet
}

// pooledSet is one set of a pooled split: rows of a pool.
type pooledSet struct {
	pool *mat.Dense
	rows []int
}

// AllSets returns the split's sets, to which Gallery and Probe index:
// Sets, or for pooled data the frames drawn from each class's pool, copied
// anew at every call.
func (sp Split) AllSets() []*mat.Dense {
	if sp.drawn == nil {
		return sp.Sets
	}
	sets := make([]*mat.Dense, len(sp.drawn))
	for i, ps := range sp.drawn {
		_, dim := ps.pool.Dims()
		x := mat.NewDense(len(ps.rows), dim, nil)
		for k, r := range ps.rows {
			x.SetRow(k, ps.pool.RawRowView(r))
		}
		sets[i] = x
	}
	return sets
}

// IsVisitor reports whether class c is one of the split's visitors.
func (sp Split) IsVisitor(c int) bool {
	return slices.Contains(sp.Visitors, c)
}

// IsOther reports whether class c is one of the split's others.
func (sp Split) IsOther(c int) bool {
	return slices.Contains(sp.Others, c)
}

// IsStranger reports whether class c is one of the split's strangers.
func (sp Split) IsStranger(c int) bool {
	for _, s := range sp.Strangers {
		if s == c {
			return true
		}
	}
	return false
}

// SmallestGallery returns the number of gallery sets of the smallest
// class in p's splits of sets with these labels: 1 where a class is a
// single pooled set, or where it is not known before the splits are read
// (a split file).
func (p Protocol) SmallestGallery(labels []int, pooled bool) int {
	switch {
	case pooled:
		return 1
	case p.Kind == RandomSplits:
		return p.Gallery
	case p.Kind == LeaveOneOut:
		return method.SmallestClass(labels) - 1
	}
	return 1
}

// MakeSplits returns the splits of d under p. Random splits use seed; split s
// draws from its own stream, so split s is the same whatever the number of
// splits. The splits of a SplitFile protocol come from ReadSplits, given
// the file's content.
func (p Protocol) MakeSplits(d *Data, seed uint64) ([]Split, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	if p.Strangers > 0 && p.Kind != RandomSplits {
		return nil, fmt.Errorf("protocol %v: strangers=K needs random splits (gallery=G,probe=P,splits=S,strangers=K)", p)
	}
	if err := p.checkVisitors(); err != nil {
		return nil, fmt.Errorf("protocol %v: %w", p, err)
	}
	switch p.Kind {
	case LeaveOneOut:
		if d.Pooled {
			return nil, errors.New("leave-one-out needs data in sets, not pooled frames: use gallery=G,probe=P,splits=S")
		}
		out := make([]Split, len(d.Sets))
		for i := range d.Sets {
			s := Split{Sets: d.Sets, Labels: d.Labels, Probe: []int{i}}
			for j := range d.Sets {
				if j != i {
					s.Gallery = append(s.Gallery, j)
				}
			}
			out[i] = s
		}
		return out, nil
	case SplitFile:
		return nil, fmt.Errorf("protocol %v: the splits are in the file; read them with ReadSplits", p)
	}
	if p.Splits < 1 || p.Gallery < 1 {
		return nil, fmt.Errorf("protocol %v: need splits ≥ 1 and gallery ≥ 1", p)
	}
	if C := len(d.Classes); p.Strangers < 0 || (p.Strangers > 0 && C-p.Strangers < 2) {
		known := fmt.Sprintf("leaves %d known", C-p.Strangers)
		if C-p.Strangers <= 0 {
			known = "leaves no class known"
		}
		return nil, fmt.Errorf("protocol %v: %d strangers of %d classes %s: recognition needs at least 2 known classes, so strangers=K needs K ≤ %d", p, p.Strangers, C, known, C-2)
	} else if p.Visitors > 0 && C-p.Strangers < VisitorsMinKnown {
		// K ≥ 2 with visitors: one visitor and one stranger at the door.
		fix := fmt.Sprintf("strangers=K needs K ≤ %d with visitors, or leave visitors=V out", C-VisitorsMinKnown)
		if C-VisitorsMinKnown < 2 {
			fix = fmt.Sprintf("visitors need %d classes or more (%d known, a visitor and a stranger at the door), and the data have %d: leave visitors=V out", VisitorsMinKnown+2, VisitorsMinKnown, C)
		}
		return nil, fmt.Errorf("protocol %v: %d strangers of %d classes leaves %d known, and visitors=%d needs at least %d known classes: the visitors' sets are counted beside stand-in strangers, whose folds each leave a known class out and keep 2; %s", p, p.Strangers, C, C-p.Strangers, p.Visitors, VisitorsMinKnown, fix)
	}
	byClass := make([][]int, len(d.Classes))
	for i, l := range d.Labels {
		byClass[l] = append(byClass[l], i)
	}
	order := p.strangerOrder(len(d.Classes), seed)
	out := make([]Split, p.Splits)
	for s := range p.Splits {
		rng := rand.New(rand.NewPCG(seed, uint64(s)+1))
		strangers, visitors, others := p.strangersOf(order, s)
		if d.Pooled {
			sp, err := p.pooledSplit(d, byClass, rng, strangers)
			if err != nil {
				return nil, err
			}
			sp.Visitors, sp.Others = visitors, others
			out[s] = sp
			continue
		}
		sp := Split{Sets: d.Sets, Labels: d.Labels, Strangers: strangers, Visitors: visitors, Others: others}
		for c, idx := range byClass {
			need := p.Gallery + max(p.Probe, 1)
			if len(idx) < need {
				return nil, fmt.Errorf("class %q has %d sets, the protocol %v needs %d%s", d.Classes[c], len(idx), p, need, p.fitting(byClass))
			}
			perm := rng.Perm(len(idx))
			stranger := sp.IsStranger(c)
			for k, pi := range perm {
				switch {
				case k < p.Gallery:
					if !stranger {
						sp.Gallery = append(sp.Gallery, idx[pi])
					}
				case p.Probe == 0 || k < p.Gallery+p.Probe:
					sp.Probe = append(sp.Probe, idx[pi])
				}
			}
		}
		sort.Ints(sp.Gallery)
		sort.Ints(sp.Probe)
		out[s] = sp
	}
	return out, nil
}

// fitting suggests a protocol like p whose gallery and probe sets every
// class of byClass has (about half of the smallest class's sets to each),
// for the error of one that asks more.
func (p Protocol) fitting(byClass [][]int) string {
	n := len(byClass[0])
	for _, idx := range byClass {
		n = min(n, len(idx))
	}
	if n < 2 {
		return fmt.Sprintf(": a class has %d set, and each needs at least 2, one for the gallery and one to recognise", n)
	}
	q := p
	q.Gallery, q.Probe = n-n/2, n/2
	return fmt.Sprintf(": the smallest class has %d sets; give --protocol %v, for example", n, q)
}

// strangerOrder returns the permutation of the c classes the stranger
// classes rotate through: drawn from the seed on a stream of its own
// (the splits draw on streams 1, 2, …), so that adding strangers leaves
// every class's draw of gallery and probe sets as it was. Nil without
// strangers.
func (p Protocol) strangerOrder(c int, seed uint64) []int {
	if p.Strangers == 0 {
		return nil
	}
	return rand.New(rand.NewPCG(seed, 0)).Perm(c)
}

// strangersOf returns the stranger classes of split s, increasing: those
// at positions s·K … s·K+K−1 (mod C) of order; its visitors, those at
// the first p.Visitors of these positions; and its others, those at the
// p.Others positions after them.
func (p Protocol) strangersOf(order []int, s int) (strangers, visitors, others []int) {
	if len(order) == 0 {
		return nil, nil, nil
	}
	strangers = make([]int, p.Strangers)
	for k := range strangers {
		strangers[k] = order[(s*p.Strangers+k)%len(order)]
	}
	if p.Visitors > 0 {
		visitors = slices.Clone(strangers[:p.Visitors])
		sort.Ints(visitors)
	}
	if p.Others > 0 {
		others = slices.Clone(strangers[p.Visitors : p.Visitors+p.Others])
		sort.Ints(others)
	}
	sort.Ints(strangers)
	return strangers, visitors, others
}

// pooledSplit draws one split of pooled data: per class a gallery set of
// p.Gallery frames and a probe set of p.Probe frames (the rest for 0);
// the stranger classes' gallery frames are drawn too, then left out.
func (p Protocol) pooledSplit(d *Data, byClass [][]int, rng *rand.Rand, strangers []int) (Split, error) {
	sp := Split{Strangers: strangers}
	for c, idx := range byClass {
		if len(idx) != 1 {
			return Split{}, fmt.Errorf("pooled data: class %q has %d pools, want 1", d.Classes[c], len(idx))
		}
		pool := d.Sets[idx[0]]
		n, _ := pool.Dims()
		probe := p.Probe
		if probe == 0 {
			probe = n - p.Gallery
		}
		if p.Gallery < 2 || probe < 2 || p.Gallery+probe > n {
			return Split{}, fmt.Errorf("class %q has %d frames: the protocol %v needs gallery and probe sets of at least 2 frames, %d in all", d.Classes[c], n, p, p.Gallery+probe)
		}
		perm := rng.Perm(n)
		if !sp.IsStranger(c) {
			sp.Gallery = append(sp.Gallery, len(sp.drawn))
			sp.drawn = append(sp.drawn, pooledSet{pool, perm[:p.Gallery]})
			sp.Labels = append(sp.Labels, c)
		}
		sp.Probe = append(sp.Probe, len(sp.drawn))
		sp.drawn = append(sp.drawn, pooledSet{pool, perm[p.Gallery : p.Gallery+probe : p.Gallery+probe]})
		sp.Labels = append(sp.Labels, c)
	}
	return sp, nil
}

func (d *Data) check() error {
	if len(d.Sets) == 0 {
		return errors.New("data holds no sets")
	}
	if len(d.Labels) != len(d.Sets) {
		return fmt.Errorf("%d sets but %d labels", len(d.Sets), len(d.Labels))
	}
	if len(d.Classes) < 2 {
		return fmt.Errorf("data has %d class(es): recognition needs at least 2", len(d.Classes))
	}
	for i, l := range d.Labels {
		if l < 0 || l >= len(d.Classes) {
			return fmt.Errorf("set %d has label %d outside the %d classes", i, l, len(d.Classes))
		}
	}
	return nil
}

// WriteSplits writes splits of d as a split file that ReadSplits reads
// back: one line "<split> <role> <class>/<set>" per set of each split,
// splits numbered from 1, so that another tool can be measured on the
// same splits. The role is gallery or probe, and for the probe sets of a
// split's visitors and others (Split.Visitors, Split.Others) visitor or
// other. A split file names no strangers: a probe set whose class has no
// gallery set in its split is a stranger's. It refuses pooled data (its
// sets are drawn from a pool and have no names), which the format cannot
// say.
func WriteSplits(w io.Writer, splits []Split, d *Data) error {
	if d.Pooled {
		return errors.New("the sets of pooled data are drawn from each class's pool and have no names, so a split file cannot name them: leave --splits-out out for pooled data, or give the data as one folder per set")
	}
	bw := bufio.NewWriter(w)
	if len(splits) > 0 && len(splits[0].Strangers) > 0 {
		fmt.Fprintln(bw, OpenSetMark)
	}
	for k, sp := range splits {
		for _, role := range []struct {
			name string
			idx  []int
		}{{RoleGallery, sp.Gallery}, {RoleProbe, sp.Probe}} {
			for _, i := range role.idx {
				if i < 0 || i >= len(d.Names) || d.Names[i] == "" {
					return fmt.Errorf("split %d: %s set %d has no name", k+1, role.name, i)
				}
				if n := d.Names[i]; strings.ContainsAny(n, "\r\n") || strings.TrimLeftFunc(n, unicode.IsSpace) != n {
					return fmt.Errorf("set %q: a split file cannot name a set whose name holds a line break or begins with white space: rename its class or set folder", n)
				}
				name := role.name
				if name == RoleProbe {
					switch c := d.Labels[i]; {
					case sp.IsVisitor(c):
						name = RoleVisitor
					case sp.IsOther(c):
						name = RoleOther
					}
				}
				fmt.Fprintf(bw, "%d %s %s\n", k+1, name, d.Names[i])
			}
		}
	}
	return bw.Flush()
}

// The roles of a set in a split file.
const (
	RoleGallery = "gallery" // a training set of a known class
	RoleProbe   = "probe"   // a set decided: a known class's, or a stranger's
	// RoleVisitor marks a set of a stranger class given to training as a
	// strangers' set (setmatch train --strangers; Split.Visitors) and not
	// decided.
	RoleVisitor = "visitor"
	// RoleOther marks a set of a stranger class given to training as an
	// others' set (setmatch train --others; Split.Others) and not decided.
	RoleOther = "other"
)

// cutField returns the first white-space-separated field of s and what
// follows the white space after it.
func cutField(s string) (field, rest string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeftFunc(s[i:], unicode.IsSpace)
}

// OpenSetMark is the line with which WriteSplits begins the file of an
// open set (splits with Strangers): ReadSplits then takes a probe set
// whose class has no gallery set in its split for a stranger's.
const OpenSetMark = "# open set: a probe set whose class has no gallery set in its split is a stranger's"

// ReadSplits reads a split file. Each line names one set and its role in
// one split:
//
//	<split> <gallery|probe|visitor|other> <class>/<set>
//
// e.g. "0 gallery apple/apple1"; the name is the rest of the line, spaces
// and all ("1 probe Ana Lima/door 2"). Splits are numbered by any whole
// numbers, at most MaxSplits of them, and taken in increasing order; blank
// lines and lines starting with # are ignored, and lines ended by CR alone
// (classic Mac text) are refused as such. Every split needs gallery and
// probe sets; a set may appear only once per split. In a file that holds
// the line OpenSetMark (as WriteSplits writes the splits of strangers=K),
// a probe set whose class has no gallery set in its split is a
// stranger's: its class is among the split's Strangers, and every split
// needs strangers and known probes, and as many stranger classes. Without
// it the splits are a closed set.
//
// A visitor or other set is a set of a stranger class given to training
// and not decided (Split.Visitors, Split.Others: what visitors=V and
// others=O make); a file with them is an open set, mark or not. Their
// class has no gallery or probe set in the split and is not both, every
// split has as many visitor classes and as many other classes, at least
// one stranger class comes to the door, and a split with visitors keeps
// VisitorsMinKnown known classes.
func ReadSplits(r io.Reader, name string, d *Data) ([]Split, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	if d.Pooled {
		return nil, errors.New("split files name sets: pooled data have none, use gallery=G,probe=P,splits=S")
	}
	index := make(map[string]int, len(d.Names))
	for i, n := range d.Names {
		index[n] = i
	}
	type roles struct {
		g, p             []int
		visitors, others map[int]bool // classes
		probed           map[int]bool // classes with a probe line
	}
	bySplit := map[int]*roles{}
	seen := map[[2]int]bool{}
	sc := bufio.NewScanner(r)
	line, open := 0, false
	// crLine is the first comment line holding a carriage return: a file
	// whose lines end in CR alone is one line, and one that begins with
	// a comment is one comment, without a split.
	crLine := 0
	// crErr is the error of a line that holds a carriage return, where the
	// line is refused: it is lines that end in CR alone (a set's name
	// holds none: WriteSplits refuses one).
	crErr := func(line int) error {
		return fmt.Errorf("%s:%d: the line holds a carriage return (\\r) inside it: the file's lines end in CR alone, as classic Mac programs write them; save it with LF or CRLF line ends, e.g. tr '\\r' '\\n' < old.txt > new.txt", name, line)
	}
	for sc.Scan() {
		line++
		raw := strings.TrimSuffix(sc.Text(), "\r")
		if line == 1 {
			raw = strings.TrimPrefix(raw, "\ufeff") // a byte-order mark some editors write
		}
		t := strings.TrimSpace(raw)
		if t == OpenSetMark {
			open = true
		}
		if t == "" || strings.HasPrefix(t, "#") {
			if crLine == 0 && strings.ContainsRune(t, '\r') {
				crLine = line
			}
			continue
		}
		lineErr := func(err error) error {
			if strings.ContainsRune(t, '\r') {
				return crErr(line)
			}
			return err
		}
		// The set's name is the rest of the line: it may hold spaces.
		num, rest := cutField(raw)
		role, set := cutField(rest)
		if _, ok := index[set]; !ok {
			set = strings.TrimRightFunc(set, unicode.IsSpace)
		}
		if set == "" {
			return nil, lineErr(fmt.Errorf("%s:%d: want \"<split> <gallery|probe|visitor|other> <class>/<set>\", got %q", name, line, t))
		}
		s, err := strconv.Atoi(num)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%s:%d: split %q is too large a number: number the splits 1, 2, 3, …", name, line, num)
		} else if err != nil {
			return nil, lineErr(fmt.Errorf("%s:%d: split %q is not a whole number", name, line, num))
		}
		i, ok := index[set]
		if !ok {
			return nil, lineErr(fmt.Errorf("%s:%d: no set %q in the data (names are <class>/<set>)", name, line, set))
		}
		if seen[[2]int{s, i}] {
			return nil, fmt.Errorf("%s:%d: set %q appears twice in split %d", name, line, set, s)
		}
		seen[[2]int{s, i}] = true
		rl := bySplit[s]
		if rl == nil {
			// Refused at the line that opens one split too many, not
			// after the whole file: each split costs far more memory
			// than its line, so that a file of many splits, kept whole,
			// would take ~20 times its size.
			if len(bySplit) == MaxSplits {
				return nil, fmt.Errorf("%s:%d: split %d is one more than the %d a split file may hold: give fewer splits (10 is the paper's)", name, line, s, MaxSplits)
			}
			rl = &roles{visitors: map[int]bool{}, others: map[int]bool{}, probed: map[int]bool{}}
			bySplit[s] = rl
		}
		c := d.Labels[i]
		switch role {
		case RoleGallery:
			rl.g = append(rl.g, i)
		case RoleProbe:
			rl.p = append(rl.p, i)
			rl.probed[c] = true
		case RoleVisitor, RoleOther:
			rl.p = append(rl.p, i)
			open = true
			if role == RoleVisitor {
				rl.visitors[c] = true
			} else {
				rl.others[c] = true
			}
			if rl.visitors[c] && rl.others[c] {
				return nil, fmt.Errorf("%s:%d: class %q is given as a visitor and as an other in split %d: give each of its sets one of the two roles", name, line, d.Classes[c], s)
			}
		default:
			return nil, fmt.Errorf("%s:%d: role %q: want gallery, probe, visitor or other", name, line, role)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s:%d: a line longer than %d KiB: each line is \"<split> <gallery|probe|visitor|other> <class>/<set>\"", name, line+1, bufio.MaxScanTokenSize>>10)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	keys := make([]int, 0, len(bySplit))
	for k := range bySplit {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	if len(keys) == 0 && crLine > 0 {
		return nil, crErr(crLine)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no splits", name)
	}
	out := make([]Split, 0, len(keys))
	nKnown := make([]int, 0, len(keys)) // the classes with gallery sets, per split
	for _, k := range keys {
		rl := bySplit[k]
		if len(rl.g) == 0 || len(rl.p) == 0 {
			return nil, fmt.Errorf("%s: split %d needs gallery and probe sets", name, k)
		}
		sp := Split{Sets: d.Sets, Labels: d.Labels, Gallery: rl.g, Probe: rl.p}
		known := galleryClasses(sp)
		if len(known) < 2 {
			return nil, fmt.Errorf("%s: split %d's gallery holds %d class: a model tells at least two apart; give the split gallery sets of two classes or more", name, k, len(known))
		}
		if open {
			sp.Strangers = fileStrangers(sp, known)
		}
		for _, given := range []struct {
			role, a string // the role and its article
			classes map[int]bool
			into    *[]int
		}{{RoleVisitor, "a", rl.visitors, &sp.Visitors}, {RoleOther, "an", rl.others, &sp.Others}} {
			for _, c := range slices.Sorted(maps.Keys(given.classes)) {
				switch {
				case !sp.IsStranger(c):
					return nil, fmt.Errorf("%s: split %d gives class %q gallery sets and %s sets: %s %s is a stranger to the split's model, so give its sets no gallery role", name, k, d.Classes[c], given.role, given.a, given.role)
				case rl.probed[c]:
					return nil, fmt.Errorf("%s: split %d gives class %q probe sets and %s sets: %s %s's sets go to training and are not decided, so give all its sets the role %s", name, k, d.Classes[c], given.role, given.a, given.role, given.role)
				}
				*given.into = append(*given.into, c)
			}
		}
		out, nKnown = append(out, sp), append(nKnown, len(known))
	}
	for i, sp := range out {
		switch {
		case !open:
		case len(sp.Strangers) == 0:
			return nil, fmt.Errorf("%s: split %d has no strangers' probes (probe sets whose class has no gallery set), but the file says it is an open set", name, keys[i])
		case len(sp.Strangers) != len(out[0].Strangers):
			return nil, fmt.Errorf("%s: split %d has %d stranger classes (classes with probe, visitor or other sets and no gallery set) and split %d has %d: give every split as many, as strangers=K makes them", name, keys[i], len(sp.Strangers), keys[0], len(out[0].Strangers))
		case !slices.ContainsFunc(sp.Probe, func(j int) bool { return !sp.IsStranger(d.Labels[j]) }):
			return nil, fmt.Errorf("%s: split %d has strangers' probes only: an open set needs probes of known classes too", name, keys[i])
		case len(sp.Visitors) != len(out[0].Visitors) || len(sp.Others) != len(out[0].Others):
			return nil, fmt.Errorf("%s: split %d has %d visitor and %d other classes and split %d has %d and %d: give every split as many of each, as visitors=V and others=O make them", name, keys[i], len(sp.Visitors), len(sp.Others), keys[0], len(out[0].Visitors), len(out[0].Others))
		case len(sp.Visitors)+len(sp.Others) == len(sp.Strangers):
			return nil, fmt.Errorf("%s: split %d gives every stranger class to training (as visitor or other): at least one must come to the door, with probe sets", name, keys[i])
		case len(sp.Visitors) > 0 && nKnown[i] < VisitorsMinKnown:
			return nil, fmt.Errorf("%s: split %d has visitors and %d known classes: visitors need at least %d (each stand-in fold leaves a known class out and keeps two)", name, keys[i], nKnown[i], VisitorsMinKnown)
		}
	}
	return out, nil
}

// galleryClasses returns the classes with gallery sets in sp.
func galleryClasses(sp Split) map[int]bool {
	known := map[int]bool{}
	for _, i := range sp.Gallery {
		known[sp.Labels[i]] = true
	}
	return known
}

// fileStrangers returns the classes (increasing) of the probe sets of sp
// whose class is not known (galleryClasses of sp), nil when there are
// none.
func fileStrangers(sp Split, known map[int]bool) []int {
	var out []int
	for _, i := range sp.Probe {
		if c := sp.Labels[i]; !known[c] && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// Unnamable returns how many probe sets of the closed-set splits (those
// without Strangers) are of a class with no gallery set in their split,
// and in how many splits: a closed set can only name them wrong, and
// counts them as errors. Leave-one-out makes them of a class of one set;
// a split file without OpenSetMark, of a class it gives no gallery set.
func Unnamable(splits []Split) (sets, inSplits int) {
	for _, sp := range splits {
		if len(sp.Strangers) > 0 {
			continue
		}
		known, n := galleryClasses(sp), 0
		for _, i := range sp.Probe {
			if !known[sp.Labels[i]] {
				n++
			}
		}
		if n > 0 {
			sets, inSplits = sets+n, inSplits+1
		}
	}
	return sets, inSplits
}
