package dirlock

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// holderIn returns the pid that /proc/locks, whose text is locks, says
// holds a Lock (a write FLOCK) of the file major:minor:ino, or 0 where
// none does or the pid is not known (a process outside this one's pid
// namespace shows as 0, or not at all). A process blocked waiting for the
// lock ("->") does not hold it.
//
// Each line is "ID: TYPE ADVISORY MODE PID MAJOR:MINOR:INODE START END",
// MAJOR and MINOR in hex (fs/locks.c, lock_get_status).
func holderIn(locks []byte, major, minor uint32, ino uint64) int {
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
	sc := bufio.NewScanner(bytes.NewReader(locks))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[1] == "->" || f[1] != "FLOCK" || f[3] != "WRITE" || f[5] != want {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}

// mountDev returns the device number that /proc/self/mountinfo, whose text
// is mountinfo, gives the mount mntID: its file system's, as /proc/locks
// names it. Each line is "ID PARENT MAJOR:MINOR ROOT POINT …", MAJOR and
// MINOR in decimal (fs/proc_namespace.c, show_mountinfo).
func mountDev(mountinfo []byte, mntID uint64) (major, minor uint32, ok bool) {
	want := strconv.FormatUint(mntID, 10)
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != want {
			continue
		}
		ma, mn, found := strings.Cut(f[2], ":")
		a, err1 := strconv.ParseUint(ma, 10, 32)
		b, err2 := strconv.ParseUint(mn, 10, 32)
		if !found || err1 != nil || err2 != nil {
			return 0, 0, false
		}
		return uint32(a), uint32(b), true
	}
	return 0, 0, false
}

// StopHolder says how to stop the setmatchd that holds the lock of the
// folder or file at path (a spool's cur/, a journal's lock file), whose
// pid is pid (Holder), 0 where the system does not say: the service's
// stop or a kill of that pid. Without the pid (a daemon that the unit
// starts sees no /proc/locks) the holder may be one started by hand,
// which systemctl does not stop: it says where lslocks names the pid, the
// FLOCK of path.
func StopHolder(pid int, path string) string {
	if pid > 0 {
		return fmt.Sprintf("systemctl stop setmatchd, or kill %d", pid)
	}
	return fmt.Sprintf("systemctl stop setmatchd where it is the service, else kill it: lslocks names its pid, the FLOCK of %s", path)
}
