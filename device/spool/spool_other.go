//go:build !linux

package spool

import (
	"io/fs"
	"os"
	"time"
)

// changeTime falls back to the modification time where the inode change time
// is not at hand.
func changeTime(fi fs.FileInfo) time.Time { return fi.ModTime() }

// readNames returns the names in the folder d ("." and ".." left out). A
// name renamed in while they are read may be missed while one renamed in
// after it is listed.
func readNames(d *os.Root) ([]string, error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// canWrite finds nothing wrong where access(2) is not at hand: a folder
// the daemon may not write fails the first batch moved through it.
func canWrite(p string) error { return nil }
