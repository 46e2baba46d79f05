//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime returns the user and system CPU time of the process so far, all
// threads (getrusage), or 0 where it cannot be read: benchmarks report
// CPU seconds per operation by it, a figure less sensitive than wall time
// to other load on a shared machine.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
