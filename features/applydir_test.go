package features

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestApplyDir(t *testing.T) {
	dir := mixedBurst(t, 40, 30)
	f := mustFitted(t, "lbp:2x2")
	got, err := f.ApplyDir(dir, DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.ApplyBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, want) {
		t.Error("ApplyDir differs from ApplyBurst on the folder")
	}

	_, err = f.ApplyDir(filepath.Join(dir, "missing"), DefaultBurstLimits())
	var de *DirError
	if !errors.As(err, &de) || !errors.Is(err, fs.ErrNotExist) || err.Error() != de.Err.Error() {
		t.Errorf("a missing folder: %v, want a *DirError of not-exist with its message", err)
	}
	// A refused burst is no DirError.
	_, err = f.ApplyDir(dir, ImageLimits{MaxFrames: 1, MaxPixels: 1 << 20, MaxFileBytes: 1 << 20})
	if err == nil || errors.As(err, &de) {
		t.Errorf("a burst over the frame limit: %v, want an error that is no *DirError", err)
	}
}
