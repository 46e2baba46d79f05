//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// writeFile is WriteFile by renameio's pending file, kept in path's
// folder.
func writeFile(path string, perm fs.FileMode, keepMode bool, write func(*os.File) error) error {
	opts := []renameio.Option{renameio.WithTempDir(filepath.Dir(path)), renameio.WithPermissions(perm)}
	if keepMode {
		opts = append(opts, renameio.WithExistingPermissions())
	}
	t, err := renameio.NewPendingFile(path, opts...)
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if err := write(t.File); err != nil {
		return err
	}
	return t.CloseAtomicallyReplace()
}
