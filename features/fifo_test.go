package features

import (
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// TestFilesFIFONotWaitedOn: a FIFO in a frame's place, named on the
// command line or swapped in after the folder was listed, is refused by
// the workstation's readers (ApplyFiles, DecodeImageFile) at once, where
// opening it for reading waits for a writer that never comes.
func TestFilesFIFONotWaitedOn(t *testing.T) {
	fifo := testutil.FIFO(t, t.TempDir(), "f00.png")
	f := mustFitted(t, "intensity:8x6")
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"ApplyFiles", func() error { _, err := f.ApplyFiles([]string{fifo}, FolderLimits()); return err }},
		{"DecodeImageFile", func() error { _, err := DecodeImageFile(fifo); return err }},
	} {
		var err error
		testutil.Within(t, 10*time.Second, c.name+" of a FIFO", func() { err = c.read() })
		if err == nil || !strings.Contains(err.Error(), "regular file") {
			t.Errorf("%s of a FIFO: %v, want it refused as not a regular file", c.name, err)
		}
	}
}
