package device

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"setmatch/device/journal"
	"setmatch/device/spool"
)

// checkSpool says, for setmatchd -check, whether the writers in the spool's
// group can put batches into tmp/ and new/: both need the group's write and
// search bits (and setgid, so that batches belong to the group). A missing
// spool is fine where setmatchd can create it (creatable); a path that is
// not a directory is not. It says the pid of a setmatchd running on the
// spool where the system names it (spool.Holder), without taking the
// spool's lock: -check runs beside the daemon.
func checkSpool(dir string, w io.Writer) error {
	spoolInfo, err := os.Stat(dir)
	switch {
	case missing(err):
		if err := creatable(dir); err != nil {
			return fmt.Errorf("spool.dir %s does not exist, and setmatchd cannot create it: %w (create it, or set spool.dir to a directory on a writable disk)", dir, err)
		}
		fmt.Fprintf(w, "spool:    %s: missing; setmatchd creates it with tmp/ and new/ writable by the spool group\n", dir)
		return nil
	case err != nil:
		return spool.AccessError(dir, err)
	case !spoolInfo.IsDir():
		return fmt.Errorf("spool.dir %s is not a directory: set spool.dir to a directory (setmatchd creates it if it is missing)", dir)
	}
	var errs []error
	var good, absent []string
	for _, sub := range []string{spool.DirTmp, spool.DirNew} {
		p := filepath.Join(dir, sub)
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			absent = append(absent, sub+"/")
			continue
		}
		if errors.Is(err, fs.ErrPermission) {
			// The spool folder itself cannot be searched: one error.
			return spool.AccessError(dir, err)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m := fi.Mode()
		if g, want, ok := groups(fi, spoolInfo); ok && g != want {
			errs = append(errs, fmt.Errorf("spool: %s belongs to group %d, the spool folder %s to group %d: cameras in the spool's group cannot write it (sudo chgrp %d %s)", p, g, dir, want, want, p))
		} else if m.Perm()&0o030 != 0o030 {
			errs = append(errs, fmt.Errorf("spool: %s is mode %04o: the spool group cannot write it, so cameras in that group cannot deliver batches (sudo chmod 3770 %s)", p, spool.OctalMode(m), p))
		} else {
			good = append(good, sub+"/")
			if m&fs.ModeSetgid == 0 {
				fmt.Fprintf(w, "spool:    note: %s is not setgid: batches get their writer's group, not the spool's (chmod g+s %s)\n", p, p)
			}
		}
	}
	if len(errs) == 0 {
		var say []string
		if len(good) > 0 {
			say = append(say, strings.Join(good, " and ")+" writable by the spool group")
		}
		if len(absent) > 0 {
			// Under its unit (RestrictSUIDSGID=) the daemon may not give
			// them their set-group-ID bit: it then stops, with the
			// commands that make them (spool.Open).
			it := "it"
			if len(absent) > 1 {
				it = "them"
			}
			say = append(say, fmt.Sprintf("%s missing: setmatchd makes %s at start, except under its unit, where it stops with the install -d commands that make %s",
				strings.Join(absent, " and "), it, it))
		}
		fmt.Fprintf(w, "spool:    %s: %s\n", dir, strings.Join(say, "; "))
	}
	if pid := spool.Holder(dir); pid > 0 {
		fmt.Fprintf(w, "spool:    in use by setmatchd pid %d, which holds the lock of its %s/: a second setmatchd on it refuses to start\n", pid, spool.DirCur)
	}
	return errors.Join(errs...)
}

// groups returns the groups of the files a and b, where the system says.
func groups(a, b fs.FileInfo) (ga, gb uint32, ok bool) {
	sa, oka := a.Sys().(*syscall.Stat_t)
	sb, okb := b.Sys().(*syscall.Stat_t)
	if !oka || !okb {
		return 0, 0, false
	}
	return sa.Gid, sb.Gid, true
}

// checkJournal says, for setmatchd -check, whether setmatchd can append to
// the journal at path and rotate it past maxBytes (> 0): an existing
// journal must be a journal (a regular file, not a link, holding journal
// lines: journal.Verify) it can open for writing, and a missing one needs
// its folder, which setmatchd does not create, and in which it can make a
// file; so do a missing lock file beside it (journal.LockPath) and the
// rotation, which makes a new journal there. An existing lock file must
// be one it can open (journal.CheckLock). The journal must not be the
// model or a configuration file. It says the pid of a setmatchd writing
// the journal where the system names it (journal.Holder), without taking
// the journal's lock: -check runs beside the daemon.
func checkJournal(path string, maxBytes int64, modelPath string, configFiles []string, w io.Writer) error {
	for _, p := range append([]string{modelPath}, configFiles...) {
		what := "the configuration file"
		if p == modelPath {
			what = "the model"
		}
		if sameFile(path, p) {
			return fmt.Errorf("journal.path %s is %s %s: setmatchd would append its journal to it; set journal.path to a file of its own, such as /var/lib/setmatch/journal.jsonl", path, what, p)
		}
	}
	fi, err := os.Lstat(path)
	switch {
	case missing(err):
		dir := filepath.Dir(path)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("journal.path %s: its folder %s is missing or not a directory (create it, writable by the daemon's user, or set journal.path elsewhere)", path, dir)
		}
		if err := journalFolderWritable(path); err != nil {
			return err
		}
		if err := journal.CheckLock(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		fmt.Fprintf(w, "journal:  %s: missing; setmatchd creates it\n", path)
		return nil
	case err != nil:
		return fmt.Errorf("journal.path: %w", err)
	case fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular():
		return fmt.Errorf("journal.path %s is not a regular file (%v): set journal.path to a file", path, fi.Mode().Type())
	}
	if err := journal.Verify(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("journal.path %s cannot be opened for appending: %w (give the daemon's user write access)", path, err)
	}
	f.Close()
	err = journal.CheckLock(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && maxBytes > 0) {
		err = journalFolderWritable(path)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "journal:  %s: writable\n", path)
	if pid := journal.Holder(path); pid > 0 {
		fmt.Fprintf(w, "journal:  in use by setmatchd pid %d, which holds its lock %s: a second setmatchd writing it refuses to start\n", pid, journal.LockPath(path))
	}
	return nil
}

// journalFolderWritable returns nil when a file can be made in the folder
// of the journal at path (tried with a temporary file, removed at once):
// setmatchd makes the journal there, its lock file and, rotating it, a
// new journal.
func journalFolderWritable(path string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".setmatchd-check-*")
	if err != nil {
		return fmt.Errorf("journal.path %s: a file cannot be created in %s: %w (make the folder writable by the daemon's user, or set journal.path elsewhere)", path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// sameFile reports whether paths a and b name the same file: the same path,
// or (both existing) the same inode.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// missing reports whether err says a path does not exist: no such file,
// or a part of it that is not a directory.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// creatable returns nil when a directory can be made at dir, which does
// not exist: its nearest existing parent is a directory in which one can
// be created (tried with a temporary directory, removed at once).
func creatable(dir string) error {
	parent := filepath.Dir(filepath.Clean(dir))
	for {
		fi, err := os.Stat(parent)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a directory", parent)
			}
			break
		}
		if !missing(err) {
			return err
		}
		up := filepath.Dir(parent)
		if up == parent {
			return err
		}
		parent = up
	}
	tmp, err := os.MkdirTemp(parent, ".setmatchd-check-")
	if err != nil {
		return fmt.Errorf("no folder can be created in %s: %w", parent, err)
	}
	return os.Remove(tmp)
}
