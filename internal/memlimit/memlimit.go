// Package memlimit sets the Go runtime's soft memory limit from the
// memory the process may use: the machine's (MemTotal of /proc/meminfo)
// or its cgroup's limit when that is smaller (Set); and it gives that
// memory (Machine), which setmatch train compares with what a run needs.
package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// Share is the share of the memory the process may use that Set makes
// the soft memory limit. The Go runtime lets the heap grow to twice what is live before it
// collects (GOGC=100), and without a limit it does so whatever the
// machine has: a training run whose live data fit in memory could be
// killed for the garbage it had not yet collected. Set therefore
// sets a soft memory limit of Share of the memory it may use (the
// machine's, or its cgroup's when that is smaller), so that the collector
// works harder near it instead. The limit is soft: a run whose live data
// exceed it still runs, slower. GOMEMLIMIT, when set, is the user's
// choice and is left alone.
const Share = 0.75

// Set applies Limit to the runtime, for the files under
// root ("/" on a real machine).
func Set(root string) {
	if lim := Limit(root, os.Getenv("GOMEMLIMIT")); lim > 0 {
		debug.SetMemoryLimit(lim)
	}
}

// Limit returns Share of the smaller of MemTotal in
// root/proc/meminfo and the process's cgroup limit (cgroup v2 memory.max,
// or v1 memory.limit_in_bytes), in bytes; 0 when env (GOMEMLIMIT) is set
// or no size can be read.
func Limit(root, env string) int64 {
	if env != "" {
		return 0
	}
	return int64(float64(Machine(root)) * Share)
}

// Machine returns the memory the process may use, in bytes: the
// smaller of MemTotal in root/proc/meminfo and the cgroup's limit; 0 when
// neither can be read.
func Machine(root string) int64 {
	total := memTotal(filepath.Join(root, "proc", "meminfo"))
	if c := cgroupLimit(root); c > 0 && (total == 0 || c < total) {
		total = c
	}
	return total
}

// memTotal returns MemTotal of a meminfo file in bytes, 0 if unreadable.
func memTotal(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb <= 0 {
				return 0
			}
			if len(fields) >= 3 && fields[2] != "kB" {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupLimit returns the memory limit of the process's cgroup in bytes,
// 0 for none ("max", an absurdly large v1 value) or if unreadable. The
// paths come from root/proc/self/cgroup ("0::/path" for v2, "N:memory:/path"
// for v1); inside a container that path is often not mounted, and then
// the cgroup root's own limit is the container's.
func cgroupLimit(root string) int64 {
	cg := filepath.Join(root, "sys", "fs", "cgroup")
	var files []string
	if b, err := os.ReadFile(filepath.Join(root, "proc", "self", "cgroup")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "0::"); ok {
				files = append(files, filepath.Join(cg, filepath.Clean("/"+rest), "memory.max"))
			} else if _, rest, ok := strings.Cut(line, ":memory:"); ok {
				files = append(files, filepath.Join(cg, "memory", filepath.Clean("/"+rest), "memory.limit_in_bytes"))
			}
		}
	}
	files = append(files, filepath.Join(cg, "memory.max"), filepath.Join(cg, "memory", "memory.limit_in_bytes"))
	for _, f := range files {
		if v := readLimit(f); v > 0 {
			return v
		}
	}
	return 0
}

// readLimit reads one limit in bytes; "max" and values of 2^62 and more
// (cgroup v1's "no limit") are 0.
func readLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	s := string(bytes.TrimSpace(b))
	if s == "max" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= 1<<62 {
		return 0
	}
	return v
}
