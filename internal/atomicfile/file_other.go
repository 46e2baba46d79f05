//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// writeFile is WriteFile where renameio has no pending file (Windows):
// replace.
func writeFile(path string, perm fs.FileMode, keepMode bool, write func(*os.File) error) error {
	return replace(path, perm, keepMode, write)
}
