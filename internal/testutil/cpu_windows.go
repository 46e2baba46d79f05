package testutil

import (
	"syscall"
	"time"
)

// CPUTime returns the user and kernel CPU time of the process so far, all
// threads (GetProcessTimes), or 0 where it cannot be read: benchmarks
// report CPU seconds per operation by it, a figure less sensitive than
// wall time to other load on a shared machine.
func CPUTime() time.Duration {
	p, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var created, exited, kernel, user syscall.Filetime
	if syscall.GetProcessTimes(p, &created, &exited, &kernel, &user) != nil {
		return 0
	}
	return filetime(kernel) + filetime(user)
}

// filetime returns the length of time t counts in 100 ns units
// (Filetime.Nanoseconds would take it for a date).
func filetime(t syscall.Filetime) time.Duration {
	return time.Duration(int64(t.HighDateTime)<<32|int64(t.LowDateTime)) * 100
}
