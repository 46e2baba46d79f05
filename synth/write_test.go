package synth

import (
	"os"
	"path/filepath"
	"testing"
)

// A README written by WriteReadme does not stop PrepareOut from emptying
// the folder with force.
func TestWriteReadme(t *testing.T) {
	dir := t.TempDir()
	if err := WriteReadme(dir, "# data\n"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || string(b) != "# data\n" {
		t.Fatalf("README.md: %q, %v", b, err)
	}
	if err := PrepareOut(dir, true); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("after PrepareOut with force: %d entries left", len(ents))
	}
}
