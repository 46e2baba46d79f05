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
