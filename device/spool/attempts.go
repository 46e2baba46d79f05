package spool

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// MaxMatchAttempts is how many times the daemon may stop (crash, OOM kill,
// power loss) while reading or matching one batch before that batch is
// failed instead of tried again: a batch that kills the daemon would
// otherwise keep it in a restart loop. Only attempts that reached the read
// count: a stop while the batch was being claimed or journaled says nothing
// about it, and a clean stop (SIGTERM) ends the attempt.
const MaxMatchAttempts = 3

// attemptMarker returns the name in cur/ of the marker that counts the
// interrupted match attempts of batch name: .NAME.retry, or for a name too
// long for that, .retry-HASH (the first 32 hex digits of its SHA-256).
func attemptMarker(name string) string {
	if len(name)+len("..retry") <= 255 {
		return "." + name + ".retry"
	}
	return markerHash(name)
}

func markerHash(name string) string {
	h := sha256.Sum256([]byte(name))
	return ".retry-" + hex.EncodeToString(h[:16])
}

// isMarker reports whether a name in cur/ is an attempt marker.
func isMarker(name string) bool {
	return strings.HasPrefix(name, ".") && (strings.HasSuffix(name, ".retry") || strings.HasPrefix(name, ".retry-"))
}

// MatchAttempts returns how many earlier attempts at matching batch name in
// cur/ began and never ended.
func (s *Spool) MatchAttempts(name string) (int, error) {
	b, err := s.root.ReadFile(path.Join(DirCur, attemptMarker(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 1 {
		return 1, nil // a marker written before it held a count, or torn
	}
	return n, nil
}

// BeginMatch records that an attempt at reading and matching cur/name begins, so that a
// stop during it is counted (MatchAttempts) at the next start. The marker is
// not synced: a power loss may forget it, which errs towards one more try.
func (s *Spool) BeginMatch(name string) error {
	n, err := s.MatchAttempts(name)
	if err != nil {
		return err
	}
	if err := s.root.WriteFile(path.Join(DirCur, attemptMarker(name)), []byte(strconv.Itoa(n+1)+"\n"), 0o640); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// EndMatch removes the marker of BeginMatch: the attempt ended (with a
// decision, a failure, or a stop that leaves the batch for the next start).
func (s *Spool) EndMatch(name string) {
	s.root.Remove(path.Join(DirCur, attemptMarker(name)))
}

// removeStaleMarkers removes the markers in cur/ whose batch is gone: left
// by a stop between finishing the batch and removing the marker, they must
// not count against a later batch of the same name.
func (s *Spool) removeStaleMarkers(es []entry) {
	want := map[string]bool{}
	for _, e := range es {
		if !strings.HasPrefix(e.name, ".") {
			want[attemptMarker(e.name)] = true
		}
	}
	for _, e := range es {
		if isMarker(e.name) && !want[e.name] {
			s.root.Remove(path.Join(DirCur, e.name))
		}
	}
}
