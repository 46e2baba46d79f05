package device

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"setmatch/device/spool"
)

// checkSpool says, for setmatchd -check, whether the writers in the spool's
// group can put batches into tmp/ and new/: both need the group's write and
// search bits (and setgid, so that batches belong to the group). A missing
// spool is fine: setmatchd creates it with those modes.
func checkSpool(dir string, w io.Writer) error {
	var errs []error
	for _, sub := range []string{spool.DirTmp, spool.DirNew} {
		p := filepath.Join(dir, sub)
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m := fi.Mode()
		if m.Perm()&0o030 != 0o030 {
			errs = append(errs, fmt.Errorf("spool: %s is mode %04o: the spool group cannot write it, so cameras in that group cannot deliver batches (chmod 2770 %s)", p, m.Perm()|setgidBits(m), p))
		} else if m&fs.ModeSetgid == 0 {
			fmt.Fprintf(w, "spool:    note: %s is not setgid: batches get their writer's group, not the spool's (chmod g+s %s)\n", p, p)
		}
	}
	if len(errs) == 0 {
		fmt.Fprintf(w, "spool:    %s: tmp/ and new/ writable by the spool group\n", dir)
	}
	return errors.Join(errs...)
}

func setgidBits(m fs.FileMode) fs.FileMode {
	if m&fs.ModeSetgid != 0 {
		return 0o2000
	}
	return 0
}
