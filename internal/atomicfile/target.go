package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Target returns the file a write to path reaches: path with its
// symbolic links followed to where they lead, as the kernel follows them
// (a relative link from the folder it is in, after that folder's own
// links, so that "../x" in a linked folder leads out of its target), and
// a link to a file that does not exist yet leads to that file, so that a
// rename into place keeps the links. fi is what is there (os.Lstat of
// the file returned; nil where nothing is, or it cannot be looked at: the
// write says why). The error is that of a link that cannot be read, or of
// a loop of links.
func Target(path string) (file string, fi fs.FileInfo, err error) {
	p := resolveDir(path)
	for range 40 { // the kernel's limit of links in a path
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			return p, nil, nil
		case fi.Mode()&fs.ModeSymlink == 0:
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			return p, fi, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Dir(p) + string(filepath.Separator) + target
		}
		p = resolveDir(target)
	}
	return "", nil, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// resolveDir returns p with the folder part before its last element
// resolved as the kernel resolves it (filepath.EvalSymlinks, which takes
// a ".." after a link from the link's target), where that folder exists;
// else p cleaned.
func resolveDir(p string) string {
	i := strings.LastIndexFunc(p, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) })
	if i < 0 {
		return p
	}
	dir, base := p[:i], p[i+1:]
	if dir == "" {
		dir = string(filepath.Separator)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil && base != "" && base != "." && base != ".." {
		return filepath.Join(real, base)
	}
	return filepath.Clean(p)
}
