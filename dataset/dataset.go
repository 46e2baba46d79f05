package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/bytesize"
	"setmatch/internal/par"
	"setmatch/internal/sameset"
	"setmatch/setfile"
)

// Set is one labelled image set: Frames holds one row per frame (n×D).
type Set struct {
	Class string // class (folder) name
	Name  string // set name: file name without extension, or folder name; the class name for a pooled set
	Path  string // the set file or folder
	// Images is true where the frames were read from image files (by
	// Options.Images), false for feature files.
	Images bool
	// Frames is n×D, rows = frames, columns = features.
	Frames *mat.Dense
}

// Dataset is a loaded data set.
type Dataset struct {
	Root    string
	Classes []string // sorted
	Sets    []Set    // sorted by class, then name
	// Pooled is true for the ORL-style layout: each class is one set
	// holding all its frames, from which a protocol draws sets.
	Pooled bool
	// Failed holds the sets that could not be read, with Options.KeepGoing
	// (sorted like Sets; Frames nil), and why.
	Failed []FailedSet
}

// FailedSet is a set Load could not read, with Options.KeepGoing.
type FailedSet struct {
	Set
	Err error
}

// Labels returns, for each set, the index of its class in d.Classes.
func (d *Dataset) Labels() []int {
	idx := make(map[string]int, len(d.Classes))
	for i, c := range d.Classes {
		idx[c] = i
	}
	l := make([]int, len(d.Sets))
	for i, s := range d.Sets {
		l[i] = idx[s.Class]
	}
	return l
}

// Dim returns the number of features per frame (D), or 0 if there are no
// sets.
func (d *Dataset) Dim() int {
	if len(d.Sets) == 0 || d.Sets[0].Frames == nil {
		return 0
	}
	_, c := d.Sets[0].Frames.Dims()
	return c
}

// FrameCounts returns the frames of every set, and their sum.
func (d *Dataset) FrameCounts() (counts []int, total int) {
	counts = make([]int, len(d.Sets))
	for i, s := range d.Sets {
		counts[i], _ = s.Frames.Dims()
		total += counts[i]
	}
	return counts, total
}

// Matrices returns the frame matrices of the sets, in order.
func (d *Dataset) Matrices() []*mat.Dense {
	m := make([]*mat.Dense, len(d.Sets))
	for i, s := range d.Sets {
		m[i] = s.Frames
	}
	return m
}

// Names returns "<class>/<set>" for each set, in order: the names by which
// split files refer to sets.
func (d *Dataset) Names() []string {
	n := make([]string, len(d.Sets))
	for i, s := range d.Sets {
		n[i] = s.Class + "/" + s.Name
	}
	return n
}

// ImageSetReader turns the image files of one set into its frame matrix.
type ImageSetReader func(paths []string) (*mat.Dense, error)

// Options control Load.
type Options struct {
	// Limits bound every feature file and every set (frames, features,
	// bytes); the zero value means setfile.DefaultLimits.
	Limits setfile.Limits
	// Images turns the image files of one set (paths in name order) into
	// its n×D frame matrix: features.Loader.Reader for the data of
	// training and evaluation, features.Fitted.ImageSetReader for sets
	// read through a fitted pipeline. It is required when the data set
	// holds images, which are read one set per worker.
	Images ImageSetReader
	// Workers is the number of sets read at once, each by one goroutine
	// (its files in order); 0, or more than one per CPU, means one per
	// CPU (par.Workers).
	Workers int
	// KeepGoing leaves a set that cannot be read (a file that does not
	// decode, holds non-finite values or passes a limit) out of Sets and
	// records it in Dataset.Failed, instead of failing the whole load; the
	// other sets are read. For testing a model on sets one by one, where
	// one bad set should not hide the others; training refuses bad data.
	KeepGoing bool
}

// ErrLayout marks a directory tree that does not follow a data set layout.
var ErrLayout = errors.New("invalid data set layout")

func layoutErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrLayout, fmt.Sprintf(format, a...))
}

// imageExts are the extensions treated as frame images; whether a given
// image decodes is up to Options.Images.
var imageExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".pgm": true, ".pnm": true, ".ppm": true,
	".gif": true, ".bmp": true, ".tif": true, ".tiff": true,
}

// IsImage reports whether a file name has the extension of a frame image
// (PNG, JPEG, PGM and the like), as Load treats it.
func IsImage(name string) bool { return imageExts[strings.ToLower(filepath.Ext(name))] }

// ignored reports whether a directory entry is not data: hidden files,
// notes that commonly accompany data sets, and what file managers and
// archivers leave in image folders (Windows' Thumbs.db and desktop.ini,
// the __MACOSX folder of a zip made on a Mac).
func ignored(name string) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	up := strings.ToUpper(name)
	if strings.HasPrefix(up, "README") || strings.HasPrefix(up, "LICENSE") {
		return true
	}
	switch up {
	case "THUMBS.DB", "DESKTOP.INI", "__MACOSX":
		return true
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".txt":
		return true
	}
	return false
}

// entry is a directory entry that is data.
type entry struct {
	name string
	path string
	dir  bool
}

// list returns the data entries of dir sorted by name, following symbolic
// links.
func list(dir string) ([]entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, de := range des {
		if ignored(de.Name()) {
			continue
		}
		p := filepath.Join(dir, de.Name())
		isDir := de.IsDir()
		if de.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(p)
			if errors.Is(err, fs.ErrNotExist) {
				target, _ := os.Readlink(p)
				return nil, fmt.Errorf("%s is a symbolic link to %s, which does not exist: remove the link, or put back what it points to: %w", p, target, err)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			isDir = fi.IsDir()
		}
		out = append(out, entry{de.Name(), p, isDir})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// plan is one set to load: its frames are files, read by loadAll.
type plan struct {
	set   Set
	files []string // feature files (one, or a folder's) or images (set.Images)
}

// Load reads the data set under dir. See the package documentation for the
// layouts. Sets are read concurrently by opt.Workers goroutines; the
// result does not depend on the number of workers.
func Load(dir string, opt Options) (*Dataset, error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("data set: %w: give the folder that holds one folder per class", err)
	}
	if err != nil {
		return nil, fmt.Errorf("data set: %w", err)
	}
	if !fi.IsDir() {
		return nil, layoutErr("%s is not a directory: give the folder that holds one folder per class", dir)
	}
	classes, err := list(dir)
	if err != nil {
		return nil, fmt.Errorf("data set: %w", err)
	}
	var plans []plan
	var classNames []string
	pooled, perSet := "", ""
	for _, c := range classes {
		if !c.dir {
			return nil, layoutErr("%s is a file at the top level of %s: put sets in one folder per class (<class>/<set>.npy or <class>/<set>/<frames>)", c.name, dir)
		}
		ps, isPooled, err := scanClass(c)
		if err != nil {
			return nil, err
		}
		if isPooled {
			pooled = c.name
		} else {
			perSet = c.name
		}
		if pooled != "" && perSet != "" {
			return nil, layoutErr("class %q holds frame images directly (one pooled set) but class %q holds separate sets: use one layout for the whole data set", pooled, perSet)
		}
		classNames = append(classNames, c.name)
		plans = append(plans, ps...)
	}
	if len(classNames) == 0 {
		return nil, layoutErr("%s holds no class folders: expected <class>/<set>.npy, <class>/<set>/<frames> or <class>/<frames>", dir)
	}
	for _, p := range plans {
		if p.set.Images && opt.Images == nil {
			return nil, fmt.Errorf("set %s holds images: choose a feature extractor, e.g. --features intensity:20x20", p.set.Path)
		}
	}
	failed, err := loadAll(plans, opt)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Root: dir, Classes: classNames, Pooled: pooled != ""}
	for i, p := range plans {
		if failed[i] != nil {
			d.Failed = append(d.Failed, FailedSet{p.set, failed[i]})
			continue
		}
		d.Sets = append(d.Sets, p.set)
	}
	if opt.KeepGoing {
		return d, nil // the caller checks each set's width against its own
	}
	if err := checkDims(d.Sets); err != nil {
		return nil, err
	}
	return d, nil
}

// scanClass lists the sets of one class folder.
func scanClass(c entry) ([]plan, bool, error) {
	ents, err := list(c.path)
	if err != nil {
		return nil, false, fmt.Errorf("class %s: %w", c.name, err)
	}
	if len(ents) == 0 {
		return nil, false, layoutErr("class %s (%s) is empty: add sets or remove the folder", c.name, c.path)
	}
	var dirs, feats, imgs []entry
	for _, e := range ents {
		switch {
		case e.dir:
			dirs = append(dirs, e)
		case setfile.Format(e.name) != "":
			feats = append(feats, e)
		case IsImage(e.name):
			imgs = append(imgs, e)
		default:
			return nil, false, layoutErr("unexpected file %s: expected .npy/.csv sets, set folders or frame images", e.path)
		}
	}
	kinds := 0
	for _, n := range []int{len(dirs), len(feats), len(imgs)} {
		if n > 0 {
			kinds++
		}
	}
	if kinds > 1 {
		return nil, false, layoutErr("class %s mixes %d set folders, %d feature files and %d images: use one layout per data set", c.path, len(dirs), len(feats), len(imgs))
	}
	var plans []plan
	switch {
	case len(imgs) > 0:
		p := plan{set: Set{Class: c.name, Name: c.name, Path: c.path, Images: true}}
		for _, e := range imgs {
			p.files = append(p.files, e.path)
		}
		return []plan{p}, true, nil
	case len(feats) > 0:
		seen := map[string]string{}
		for _, e := range feats {
			name := SetName(e.name, false)
			if prev, ok := seen[name]; ok {
				return nil, false, layoutErr("class %s has two files for set %q (%s and %s): keep one", c.path, name, prev, e.name)
			}
			seen[name] = e.name
			plans = append(plans, plan{set: Set{Class: c.name, Name: name, Path: e.path}, files: []string{e.path}})
		}
	default:
		for _, s := range dirs {
			p, err := scanSetDir(c.name, s)
			if err != nil {
				return nil, false, err
			}
			plans = append(plans, p)
		}
	}
	return plans, false, nil
}

func scanSetDir(class string, s entry) (plan, error) {
	ents, err := list(s.path)
	if err != nil {
		return plan{}, fmt.Errorf("set %s: %w", s.path, err)
	}
	p := plan{set: Set{Class: class, Name: s.name, Path: s.path}}
	nimg, nfeat := 0, 0
	for _, e := range ents {
		switch {
		case e.dir:
			return plan{}, layoutErr("unexpected folder %s inside set %s: a set folder holds frame files only (if %s is a class and %s one of its sets, give the folder above them as the data set: %s)", e.name, s.path, filepath.Base(s.path), e.name, filepath.Dir(s.path))
		case IsImage(e.name):
			nimg++
		case setfile.Format(e.name) != "":
			nfeat++
		default:
			return plan{}, layoutErr("unexpected file %s: a set folder holds frame images or .npy/.csv feature files", e.path)
		}
		p.files = append(p.files, e.path)
	}
	if len(p.files) == 0 {
		return plan{}, layoutErr("set %s has no frames: add frame files or remove the folder", s.path)
	}
	if nimg > 0 && nfeat > 0 {
		return plan{}, layoutErr("set %s mixes %d images and %d feature files: use one kind of frame", s.path, nimg, nfeat)
	}
	p.set.Images = nimg > 0
	return p, nil
}

// loadAll reads every set of plans with a pool of workers, a set to a
// worker: an image set by Options.Images, a set of feature files by
// readSet. On failure it returns the error of the first failing set in
// set order (of its first failing file), so the message does not depend
// on scheduling; with opt.KeepGoing, each set's error, nil for the sets
// read.
func loadAll(plans []plan, opt Options) ([]error, error) {
	lim := opt.Limits.Resolved()
	errs := make([]error, len(plans))
	// failed is the lowest index of a failing set so far; sets after it
	// are not started (unless opt.KeepGoing).
	var failed atomic.Int64
	failed.Store(int64(len(plans)))
	par.For(len(plans), opt.Workers, func(_, k int) {
		if !opt.KeepGoing && int64(k) > failed.Load() {
			return
		}
		p := &plans[k]
		var m *mat.Dense
		var err error
		if p.set.Images {
			if m, err = opt.Images(p.files); err == nil {
				err = checkLimits(p, m, lim)
			}
		} else {
			m, err = readSet(p, lim)
		}
		if err != nil {
			errs[k] = err
			for {
				f := failed.Load()
				if int64(k) >= f || failed.CompareAndSwap(f, int64(k)) {
					break
				}
			}
			return
		}
		p.set.Frames = m
	})
	for _, err := range errs {
		if err != nil && !opt.KeepGoing {
			return nil, err
		}
	}
	return errs, nil
}

// readSet reads the feature files of a set (one file, or a folder of
// them, in order) and stacks their frames into its n×D frame matrix.
// Each file is read within what the files before it left of the set's
// limits lim (resolved), so that a folder of many files costs no more
// memory than one set at the limit.
func readSet(p *plan, lim setfile.Limits) (*mat.Dense, error) {
	var parts []*mat.Dense
	n, d := 0, 0
	for i, path := range p.files {
		left := lim
		if i > 0 {
			// The features of the first file, checked before the body
			// is read, and what its frames left of the limits.
			left.Cols = d
			left.MaxRows = lim.MaxRows - n
			left.MaxBytes = lim.MaxBytes - int64(n)*int64(d)*8
			if left.MaxRows < 1 || left.MaxBytes < int64(d)*8 {
				return nil, tooLarge(p, i, n, lim)
			}
		}
		x, err := setfile.ReadFile(path, left)
		switch {
		case i > 0 && errors.Is(err, setfile.ErrColumns):
			return nil, fmt.Errorf("set %s: frame file %s has another number of features per frame than %s, which has %d: all frames of a set need the same size: %w",
				p.set.Path, filepath.Base(path), filepath.Base(p.files[0]), d, setfile.ErrColumns)
		case i > 0 && errors.Is(err, setfile.ErrTooLarge):
			return nil, tooLarge(p, i, n, lim)
		case err != nil:
			return nil, err // *setfile.Error carries the path
		}
		r, c := x.Dims()
		if i == 0 {
			d = c
		}
		parts = append(parts, x)
		n += r
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	data := make([]float64, 0, n*d)
	for _, x := range parts {
		r, _ := x.Dims()
		for i := range r {
			data = append(data, x.RawRowView(i)...)
		}
	}
	return mat.NewDense(n, d, data), nil
}

// tooLarge is the error of a set folder whose frame files, read in order,
// pass a set's limits lim (resolved: those not set are the largest
// numbers, and not said) at its file i, after n frames in the files
// before it.
func tooLarge(p *plan, i, n int, lim setfile.Limits) error {
	files := "1 file"
	if i > 1 {
		files = fmt.Sprintf("%d files", i)
	}
	var limits []string
	knob := "" // a knob of the limits, or none
	named := func(limit, k string) string {
		if k == "" {
			return limit
		}
		knob = k
		return limit + " (" + k + ")"
	}
	if lim.MaxRows < math.MaxInt {
		limits = append(limits, named(fmt.Sprintf("%d frames", lim.MaxRows), lim.Knobs.Rows))
	}
	if lim.MaxBytes < math.MaxInt64 {
		limits = append(limits, named(bytesize.Of(float64(lim.MaxBytes))+" in memory", lim.Knobs.Bytes))
	}
	do := "split the set"
	if knob != "" {
		do += " or raise the limit"
	}
	return fmt.Errorf("set %s: its frame files pass a set's limit (%s) at %s, after %d frames in %s: %s: %w",
		p.set.Path, strings.Join(limits, " or "), filepath.Base(p.files[i]), n, files, do, setfile.ErrTooLarge)
}

// checkLimits applies the set limits to a matrix read by Options.Images.
func checkLimits(p *plan, m *mat.Dense, lim setfile.Limits) error {
	n, d := m.Dims()
	return checkSize(p, n, d, lim)
}

// checkSize applies the set limits to an n×d set.
func checkSize(p *plan, n, d int, lim setfile.Limits) error {
	if d > lim.MaxCols {
		return fmt.Errorf("set %s: %d features per frame exceed the limit of %d: %s: %w", p.set.Path, d, lim.MaxCols, setfile.Raise("reduce the features (e.g. PCA)", lim.Knobs.Cols), setfile.ErrTooLarge)
	}
	if n > lim.MaxRows {
		return fmt.Errorf("set %s: %d frames exceed a set's limit of %d: %s: %w", p.set.Path, n, lim.MaxRows, setfile.Raise("split the set", lim.Knobs.Rows), setfile.ErrTooLarge)
	}
	if int64(n)*int64(d) > lim.MaxBytes/8 {
		need, limit := bytesize.Over(float64(n)*float64(d)*8, float64(lim.MaxBytes))
		return fmt.Errorf("set %s: %d×%d frames need %s in memory, over a set's limit of %s: %s: %w", p.set.Path, n, d, need, limit, setfile.Raise("split the set", lim.Knobs.Bytes), setfile.ErrTooLarge)
	}
	return nil
}

// checkDims verifies that every set has the feature dimension of the first.
func checkDims(sets []Set) error {
	if len(sets) == 0 {
		return nil
	}
	_, d0 := sets[0].Frames.Dims()
	for _, s := range sets[1:] {
		if _, d := s.Frames.Dims(); d != d0 {
			return fmt.Errorf("%w: set %s has %d features per frame but set %s has %d: all sets need the same features",
				ErrLayout, s.Path, d, sets[0].Path, d0)
		}
	}
	return nil
}

// KeepDim keeps in d.Sets the sets of dim features per frame and moves
// the others to d.Failed, their frames dropped, each with the error wrong
// returns for it and its own number of features. When no set has dim
// features it changes nothing and returns false.
func (d *Dataset) KeepDim(dim int, wrong func(s Set, dim int) error) bool {
	fit := d.Sets[:0:0]
	var other []Set
	for _, s := range d.Sets {
		if _, D := s.Frames.Dims(); D == dim {
			fit = append(fit, s)
		} else {
			other = append(other, s)
		}
	}
	if len(fit) == 0 {
		return false
	}
	for _, s := range other {
		_, D := s.Frames.Dims()
		s.Frames = nil
		d.Failed = append(d.Failed, FailedSet{Set: s, Err: wrong(s, D)})
	}
	d.Sets = fit
	return true
}

// CheckTrain refuses a data set that cannot be trained on: fewer than 2
// sets, a set of fewer than 2 frames (a set's density needs two), or two
// sets of the same frames in any order (a burst given twice counts one
// set as two, and filed under two classes it teaches the model to take
// one for the other; setmatch enroll refuses such a set too).
func (d *Dataset) CheckTrain() error {
	if len(d.Sets) < 2 {
		return fmt.Errorf("%s holds %d set: training needs at least 2 sets", d.Root, len(d.Sets))
	}
	if err := d.CheckFrames(); err != nil {
		return err
	}
	if i, j := SameFrames(d.Sets); i >= 0 {
		fix := "remove one of them"
		if d.Sets[i].Class != d.Sets[j].Class {
			fix += ", or move it to the class it belongs to"
		}
		return fmt.Errorf("sets %s and %s hold the same frames (in this or another order): give each burst once (%s)", d.Sets[i].Path, d.Sets[j].Path, fix)
	}
	return nil
}

// CheckFrames refuses a set of fewer than 2 frames, naming its file.
func (d *Dataset) CheckFrames() error {
	for _, s := range d.Sets {
		if n, _ := s.Frames.Dims(); n < 2 {
			return fmt.Errorf("set %s has %d frame: a set's density needs at least 2 frames: add frames to it or remove it", s.Path, n)
		}
	}
	return nil
}

// SameFrames returns the first two sets i < j that hold the same frames in
// any order (sameset.Index), or -1, -1.
func SameFrames(sets []Set) (i, j int) {
	ix := sameset.New()
	for k, s := range sets {
		if o := ix.Add(s.Frames); o >= 0 {
			return o, k
		}
	}
	return -1, -1
}

// SetName is the name Load gives the set at path: a folder's own name
// (dir), or a file's name without its extension.
func SetName(path string, dir bool) string {
	base := filepath.Base(filepath.Clean(path))
	if dir {
		return base
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}
