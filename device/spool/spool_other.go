//go:build !linux

package spool

import (
	"io/fs"
	"time"
)

// changeTime falls back to the modification time where the inode change time
// is not at hand.
func changeTime(fi fs.FileInfo) time.Time { return fi.ModTime() }
