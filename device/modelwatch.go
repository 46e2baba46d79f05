package device

import (
	"errors"
	"log/slog"
	"path/filepath"
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
// its log line says the daemon keeps deciding with the model in use.
type modelWatch struct {
	log   *slog.Logger
	fw    *fsnotify.Watcher
	path  string
	dir   string
	fire  chan struct{}
	set   chan string
	done  chan struct{} // closed by close
	ended chan struct{} // closed when loop returns
}

func newModelWatch(log *slog.Logger) *modelWatch {
	mw := &modelWatch{log: log, fire: make(chan struct{}, 1), set: make(chan string),
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

// watch switches the watch to the directory of path.
func (mw *modelWatch) watch(path string) {
	if mw.fw == nil {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	select {
	case mw.set <- abs:
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
		case p := <-mw.set:
			if d := filepath.Dir(p); d != mw.dir {
				if mw.dir != "" {
					mw.fw.Remove(mw.dir)
				}
				if err := mw.fw.Add(d); err != nil {
					mw.log.Warn("cannot watch the model's directory: reload with SIGHUP", "dir", d, "err", err)
				}
				mw.dir = d
			}
			mw.path = p
		case ev, ok := <-mw.fw.Events:
			if !ok {
				return
			}
			if ev.Name == mw.path && ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) {
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
			select {
			case mw.fire <- struct{}{}:
			default: // a reload is pending already
			}
		}
	}
}

func (mw *modelWatch) close() {
	if mw.fw == nil {
		return
	}
	close(mw.done)
	mw.fw.Close()
}
