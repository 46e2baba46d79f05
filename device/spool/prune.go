package spool

import (
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"
)

// Prune applies the caps on done/ and failed/ at time now, removing the
// oldest batches first (a batch larger than the byte cap on its own
// first of all, and for it no other), and removes what has stayed in tmp/ longer than
// Options.TmpMaxAge. It returns how many batches it removed from done/
// and failed/.
func (s *Spool) Prune(now time.Time) (int, error) {
	s.pruneMu.Lock()
	defer s.pruneMu.Unlock()
	s.movedFiles.Store(0)
	s.movedBytes.Store(0)
	n1, err1 := s.prune(DirDone, caps{s.opt.DoneMaxFiles, s.opt.DoneMaxBytes, s.opt.DoneMaxAge}, now)
	n2, err2 := s.prune(DirFailed, caps{s.opt.FailedMaxFiles, s.opt.FailedMaxBytes, s.opt.FailedMaxAge}, now)
	return n1 + n2, errors.Join(err1, err2, s.pruneTmp(now))
}

// PruneDue reports whether a tenth of the tightest cap on done/ or
// failed/ (in batches or in bytes) has been moved into them since the
// last Prune: pruning then keeps them near their caps between the timed
// prunes, however large the batches.
func (s *Spool) PruneDue() bool {
	o := s.opt
	files := min(positive(int64(o.DoneMaxFiles)), positive(int64(o.FailedMaxFiles)))
	bytes := min(positive(o.DoneMaxBytes), positive(o.FailedMaxBytes))
	return (files < math.MaxInt64 && s.movedFiles.Load() >= max(files/10, 1)) ||
		(bytes < math.MaxInt64 && s.movedBytes.Load() >= max(bytes/10, 1))
}

func positive(n int64) int64 {
	if n <= 0 {
		return math.MaxInt64
	}
	return n
}

// byteCap returns the byte cap of sub (done/ or failed/), 0 for none: only
// the batches of a folder with one are measured.
func (s *Spool) byteCap(sub string) int64 {
	switch sub {
	case DirDone:
		return s.opt.DoneMaxBytes
	case DirFailed:
		return s.opt.FailedMaxBytes
	}
	return 0
}

// moved counts the batch at name (done/ or failed/) for PruneDue and,
// where its folder has a byte cap, remembers its size for the prunes.
func (s *Spool) moved(name string) {
	s.movedFiles.Add(1)
	if s.byteCap(path.Dir(name)) <= 0 {
		return
	}
	if b, ok := s.measure(name); ok {
		s.movedBytes.Add(b.bytes)
		s.remember(name, b)
	}
}

// sized is a batch's size in bytes, with its arrival in its folder
// (entry.arrived): a batch of the same name that arrives later is
// measured again.
type sized struct {
	bytes   int64
	arrived time.Time
}

// A burst's size is the work of a bounded walk: a burst holds frames only
// (a sub-folder fails it), so its files are counted down to measureDepth
// folders below it and up to measureEntries entries in all, and no
// further. A walk of the whole tree of a burst holding a chain of
// thousands of nested folders took minutes (each step inside the root
// resolves the whole path again) and held up the batch and the stop.
const (
	measureDepth   = 4
	measureEntries = 1 << 16
)

// measure returns the size of the batch at name: a file's size, or the
// sizes of the regular files in a burst's directory together (within
// measureDepth and measureEntries); ok is false when it cannot be read.
func (s *Spool) measure(name string) (b sized, ok bool) {
	fi, err := s.root.Lstat(name)
	if err != nil {
		return sized{}, false
	}
	b.arrived = changeTime(fi)
	if !fi.IsDir() {
		b.bytes = fi.Size()
		return b, true
	}
	budget := measureEntries
	b.bytes = s.dirBytes(name, measureDepth, &budget)
	return b, true
}

// dirBytes returns the sizes of the regular files in the directory at
// name together, and of those in its sub-folders down to depth more
// levels, reading at most *budget entries (and taking them off it).
func (s *Spool) dirBytes(name string, depth int, budget *int) int64 {
	f, err := s.root.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	var n int64
	for *budget > 0 {
		es, err := f.ReadDir(min(*budget, 1024))
		for _, e := range es {
			*budget--
			switch {
			case e.Type().IsRegular():
				if fi, err := e.Info(); err == nil {
					n += fi.Size()
				}
			case e.IsDir() && depth > 0 && *budget > 0:
				n += s.dirBytes(path.Join(name, e.Name()), depth-1, budget)
			}
		}
		if err != nil || len(es) == 0 {
			break
		}
	}
	return n
}

func (s *Spool) remember(name string, b sized) {
	s.sizesMu.Lock()
	defer s.sizesMu.Unlock()
	if s.sizes == nil {
		s.sizes = map[string]sized{}
	}
	s.sizes[name] = b
}

// size returns the bytes of the batch at name (sub/e.name): the size
// moved or an earlier prune measured when it arrived as e did, else
// measured now. Unreadable counts 0.
func (s *Spool) size(name string, e entry) int64 {
	s.sizesMu.Lock()
	b, ok := s.sizes[name]
	s.sizesMu.Unlock()
	if ok && b.arrived.Equal(e.arrived) {
		return b.bytes
	}
	if b, ok = s.measure(name); !ok {
		return 0
	}
	s.remember(name, b)
	return b.bytes
}

// forget drops the remembered sizes of sub's batches that are not in
// kept (names in sub).
func (s *Spool) forget(sub string, kept map[string]bool) {
	s.sizesMu.Lock()
	defer s.sizesMu.Unlock()
	for p := range s.sizes {
		if path.Dir(p) == sub && !kept[path.Base(p)] {
			delete(s.sizes, p)
		}
	}
}

// caps are the limits on one of done/ and failed/; zero is no limit.
type caps struct {
	files int
	bytes int64
	age   time.Duration
}

func (s *Spool) prune(sub string, c caps, now time.Time) (int, error) {
	if c.files <= 0 && c.bytes <= 0 && c.age <= 0 {
		return 0, nil
	}
	es, err := s.list(sub)
	if err != nil {
		return 0, err
	}
	// In failed/, count batches only: the reasons are in failed/.reasons/.
	var batches []entry
	var sizes []int64
	var total int64
	for _, e := range es {
		if strings.HasPrefix(e.name, ".") {
			continue
		}
		batches = append(batches, e)
		if c.bytes > 0 {
			n := s.size(path.Join(sub, e.name), e)
			sizes, total = append(sizes, n), total+n
		}
	}
	kept := map[string]bool{}
	defer func() { s.forget(sub, kept) }()
	removed := 0
	var firstErr error
	remove := func(name string) bool {
		err := s.removeBatch(path.Dir(name), path.Base(name))
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("spool: prune: %w", err)
		}
		return err == nil
	}
	drop := func(i int) bool {
		if !remove(path.Join(sub, batches[i].name)) {
			return false
		}
		removed++
		if c.bytes > 0 {
			total -= sizes[i]
		}
		if sub == DirFailed {
			remove(reasonName(batches[i].name))
		}
		return true
	}
	stuck := 0 // batches that could not be removed: still there
	// A batch larger than the byte cap on its own cannot be kept under it
	// whatever else goes: it goes first, and no other batch is removed to
	// make room for it, not even where it cannot be removed (left in
	// part: it counts against the count cap still, not the byte cap).
	if c.bytes > 0 {
		for i := 0; i < len(batches); i++ {
			if sizes[i] <= c.bytes {
				continue
			}
			if !drop(i) {
				kept[batches[i].name] = true
				stuck++
				total -= sizes[i]
			}
			batches, sizes = slices.Delete(batches, i, i+1), slices.Delete(sizes, i, i+1)
			i--
		}
	}
	for i, e := range batches {
		over := c.files > 0 && len(batches)-i+stuck > c.files
		large := c.bytes > 0 && total > c.bytes
		old := c.age > 0 && now.Sub(e.arrived) > c.age
		if !over && !large && !old {
			for _, k := range batches[i:] {
				kept[k.name] = true
			}
			break // sorted oldest first
		}
		if !drop(i) {
			// Left in part (a folder it cannot empty): it keeps its
			// reason, and counts against the caps still.
			kept[e.name] = true
			stuck++
		}
	}
	if sub == DirFailed {
		s.cleanReasons(now)
	}
	return removed, firstErr
}

// pruneTmp removes the files and bursts in tmp/ that have not changed for
// longer than Options.TmpMaxAge (a burst's directory changes with every
// frame written into it).
func (s *Spool) pruneTmp(now time.Time) error {
	if s.opt.TmpMaxAge <= 0 {
		return nil
	}
	es, err := s.list(DirTmp)
	if err != nil {
		return err
	}
	var firstErr error
	for _, e := range es {
		if now.Sub(e.arrived) <= s.opt.TmpMaxAge {
			break // sorted oldest first
		}
		if err := s.removeBatch(DirTmp, e.name); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("spool: prune tmp/: %w", err)
		}
	}
	return firstErr
}
