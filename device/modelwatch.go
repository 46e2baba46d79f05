package device

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// modelReloadDelay is how long the model file must stay quiet after a change
// before it is read again: writers that replace it in place (cp) produce
// several events.
const modelReloadDelay = 300 * time.Millisecond

// modelWatch watches the directory of the model file (the file itself is
// replaced by rename, which would end a watch on it) and fires, after
// modelReloadDelay of quiet, when an entry of that name is created, renamed
// in or written, or removed or renamed away: the reload then fails, and
// its log line says the daemon keeps deciding with the model in use. Where
// the path leads through symbolic links (model.smm -> current/model.smm,
// current -> releases/v2), it watches each link's directory for that link
// too, and the directory of the file the links lead to for that file: a
// link swapped for another, or the file it leads to replaced, reloads as
// the file itself replaced does. A directory on the way that is removed or
// renamed away is a change too, and the watch follows the way again after
// each change.
type modelWatch struct {
	log  *slog.Logger
	fw   *fsnotify.Watcher
	path string
	// points are the paths whose change is the model's: each link on the
	// way to the file and the file (modelPoints); dirs are the directories
	// watched for them.
	points map[string]bool
	dirs   map[string]bool
	fire   chan struct{}
	set    chan watchReq
	done   chan struct{} // closed by close
	ended  chan struct{} // closed when loop returns
}

func newModelWatch(log *slog.Logger) *modelWatch {
	mw := &modelWatch{log: log, fire: make(chan struct{}, 1), set: make(chan watchReq),
		done: make(chan struct{}), ended: make(chan struct{})}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		log.Warn("cannot watch the model file: reload with SIGHUP", "err", err)
		return mw
	}
	mw.fw = fw
	go mw.loop()
	return mw
}

// watchReq asks the loop to watch path, and is answered on done once it
// does.
type watchReq struct {
	path string
	done chan struct{}
}

// watch switches the watch to path: its directory, and those of the links
// it leads through and of the file they lead to. It returns once they are
// watched.
func (mw *modelWatch) watch(path string) {
	if mw.fw == nil {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	req := watchReq{path: abs, done: make(chan struct{})}
	select {
	case mw.set <- req:
	case <-mw.done:
		return
	case <-mw.ended:
		return
	}
	select {
	case <-req.done:
	case <-mw.done:
	case <-mw.ended:
	}
}

func (mw *modelWatch) loop() {
	defer close(mw.ended)
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		select {
		case <-mw.done:
			t.Stop()
			return
		case req := <-mw.set:
			mw.path = req.path
			mw.follow()
			close(req.done)
		case ev, ok := <-mw.fw.Events:
			if !ok {
				return
			}
			// A change of a point; or a watched directory itself removed
			// or renamed away (its watch ends, or follows it): the way
			// to the file is another now.
			if mw.points[ev.Name] && ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) ||
				mw.dirs[ev.Name] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				t.Reset(modelReloadDelay)
			}
		case err, ok := <-mw.fw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				t.Reset(modelReloadDelay)
			} else {
				mw.log.Warn("model watch", "err", err)
			}
		case <-t.C:
			// A link may lead elsewhere now: watch where it leads.
			mw.follow()
			select {
			case mw.fire <- struct{}{}:
			default: // a reload is pending already
			}
		}
	}
}

// follow watches the directories of the points of mw.path as it resolves
// now, and no others. Each is added again, as a directory of that name may
// be a new one (the old one's watch ended with it).
func (mw *modelWatch) follow() {
	mw.points = modelPoints(mw.path)
	dirs := map[string]bool{}
	for p := range mw.points {
		dirs[filepath.Dir(p)] = true
	}
	for d := range mw.dirs {
		if !dirs[d] {
			mw.fw.Remove(d)
		}
	}
	for d := range dirs {
		if err := mw.fw.Add(d); err != nil && !mw.dirs[d] {
			mw.log.Warn("cannot watch the model's directory: reload with SIGHUP", "dir", d, "err", err)
		}
	}
	mw.dirs = dirs
}

// maxLinks bounds the symbolic links modelPoints follows (a loop of links
// ends there), as the kernel's own bound (40) does.
const maxLinks = 40

// modelPoints returns the paths whose change changes what path (absolute
// and clean) opens, each in a directory reached without links (a watch on
// a directory through a link would watch the directory it leads to now,
// and name events by the link): each symbolic link met on the way to the
// file, and the file. Where the way ends (a missing entry, a loop of
// links) it returns the points up to there: the entry that appears there
// is a change.
func modelPoints(path string) map[string]bool {
	points := map[string]bool{}
	rest := strings.Split(strings.TrimPrefix(path, string(filepath.Separator)), string(filepath.Separator))
	cur := string(filepath.Separator) // resolved: no links in it
	for links := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			if err != nil || len(rest) == 0 {
				points[next] = true // the file, or where the way ends
				return points
			}
			cur = next
			continue
		}
		points[next] = true
		if links++; links > maxLinks {
			return points
		}
		target, err := os.Readlink(next)
		if err != nil {
			return points
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return points
}

func (mw *modelWatch) close() {
	if mw.fw == nil {
		return
	}
	close(mw.done)
	mw.fw.Close()
}
