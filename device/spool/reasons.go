package spool

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"setmatch/internal/regfile"
)

// DirReasons is the folder, inside failed/, of the reasons of the failed
// batches: failed/.reasons/NAME says why failed/NAME failed. Reasons live
// apart from the batches so that no batch name (q.npy.err, say) can take the
// place of another batch's reason, a reason file name is never longer than
// its batch's name, and failed/ holds batches only (its cap counts them).
const DirReasons = ".reasons"

// reasonTmpPrefix starts the names of reasons being written; Open removes
// any such file left by a crash.
const reasonTmpPrefix = ".tmp-"

// ReasonPath returns the path of the reason file of failed batch name.
func (s *Spool) ReasonPath(name string) string {
	return path.Join(s.opt.Dir, DirFailed, DirReasons, name)
}

func reasonName(name string) string { return path.Join(DirFailed, DirReasons, name) }

// WriteReason writes the reason why batch name failed to
// failed/.reasons/name, durably: to a temporary file, synced, renamed into
// place, and the folder synced. Call it before MoveFailed, so that a batch in
// failed/ always has its reason beside it. On error no temporary file is
// left behind.
func (s *Spool) WriteReason(name, reason string) error {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(DirFailed, DirReasons, reasonTmpPrefix+hex.EncodeToString(rnd[:]))
	if err := s.writeSynced(tmp, reason); err != nil {
		s.root.Remove(tmp)
		return err
	}
	if err := s.root.Rename(tmp, reasonName(name)); err != nil {
		s.root.Remove(tmp)
		return fmt.Errorf("spool: write reason: %w", err)
	}
	return s.syncDir(path.Join(DirFailed, DirReasons))
}

func (s *Spool) writeSynced(name, reason string) error {
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640) // O_EXCL: never through a link
	if err != nil {
		return fmt.Errorf("spool: write reason: %w", err)
	}
	if !strings.HasSuffix(reason, "\n") {
		reason += "\n"
	}
	_, err = io.WriteString(f, reason)
	if err == nil {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spool: write reason: %w", err)
	}
	return nil
}

// syncFile makes what was written to f, a file or a folder, durable.
// Tests replace it to see the order of the syncs and to make one fail.
var syncFile = (*os.File).Sync

// syncDir syncs the spool's folder dir (regfile.SyncDir: a folder that
// cannot be synced is skipped).
func (s *Spool) syncDir(dir string) error {
	err := regfile.SyncDir(s.root.Open, dir, syncFile)
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.Op == "sync":
		return fmt.Errorf("spool: %w", err) // it names the folder
	}
	return fmt.Errorf("spool: sync %s: %w", s.Path(dir, ""), err)
}

// MoveFailed moves cur/name to failed/name, replacing a batch of that name
// there. Call it once the batch's reason
// (WriteReason) and its journal line are on disk.
func (s *Spool) MoveFailed(name string) error {
	if err := s.moveInto(DirFailed, name); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	s.moved(path.Join(DirFailed, name))
	return nil
}

// Fail writes the reason (WriteReason) and then moves cur/name to failed/
// (MoveFailed). If the reason cannot be written the batch stays in cur/.
func (s *Spool) Fail(name, reason string) error {
	if err := s.WriteReason(name, reason); err != nil {
		return err
	}
	return s.MoveFailed(name)
}

// cleanReasons removes the temporary files of reasons whose writing was
// interrupted, and reasons whose batch is neither in failed/ nor in cur/
// (removed by hand, or moved back to new/ to be tried again) once they are
// older than a minute.
func (s *Spool) cleanReasons(now time.Time) {
	es, err := s.list(path.Join(DirFailed, DirReasons))
	if err != nil {
		return
	}
	for _, e := range es {
		if strings.HasPrefix(e.name, reasonTmpPrefix) {
			s.root.Remove(reasonName(e.name))
			continue
		}
		if now.Sub(e.arrived) < time.Minute {
			continue
		}
		_, err1 := s.root.Lstat(path.Join(DirFailed, e.name))
		_, err2 := s.root.Lstat(path.Join(DirCur, e.name))
		if errors.Is(err1, fs.ErrNotExist) && errors.Is(err2, fs.ErrNotExist) {
			s.root.Remove(reasonName(e.name))
		}
	}
}
