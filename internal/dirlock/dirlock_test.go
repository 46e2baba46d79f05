package dirlock

import "testing"

// A folder's lock is held by one open file at a time, in this process as
// in another, and given up when that file is closed.
func TestTryLock(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if busy, err := TryLock(a); busy || err != nil {
		t.Fatalf("first lock: busy %v, %v", busy, err)
	}
	if busy, err := TryLock(b); !busy || err != nil {
		t.Fatalf("second lock while the first is held: busy %v, %v; want busy", busy, err)
	}
	a.Close()
	if busy, err := TryLock(b); busy || err != nil {
		t.Fatalf("second lock after the first file closed: busy %v, %v", busy, err)
	}
	// Lock of a folder no one holds returns at once.
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := Lock(c); err != nil {
		t.Fatal(err)
	}
}

func TestHolderIn(t *testing.T) {
	const (
		maj, min = 0xfe, 0x00
		ino      = 12337451
	)
	for _, c := range []struct {
		name, locks string
		want        int
	}{
		{"held", "1: FLOCK  ADVISORY  WRITE 18362 fe:00:12337451 0 EOF\n", 18362},
		{"held, a waiter after it", "1: FLOCK  ADVISORY  WRITE 18362 fe:00:12337451 0 EOF\n1: -> FLOCK  ADVISORY  WRITE 18485 fe:00:12337451 0 EOF\n", 18362},
		{"a waiter alone", "1: -> FLOCK  ADVISORY  WRITE 18485 fe:00:12337451 0 EOF\n", 0},
		{"among others", "1: POSIX  ADVISORY  WRITE 7 fe:00:12337451 0 EOF\n2: FLOCK  ADVISORY  WRITE 8 fe:00:1233745 0 EOF\n3: FLOCK  ADVISORY  WRITE 9 fe:01:12337451 0 EOF\n4: FLOCK  ADVISORY  WRITE 10 fe:00:12337451 0 EOF\n", 10},
		{"a POSIX lock", "1: POSIX  ADVISORY  WRITE 7 fe:00:12337451 0 EOF\n", 0},
		{"a shared flock", "1: FLOCK  ADVISORY  READ 7 fe:00:12337451 0 EOF\n", 0},
		{"another inode", "1: FLOCK  ADVISORY  WRITE 7 fe:00:123374510 0 EOF\n", 0},
		{"another device", "1: FLOCK  ADVISORY  WRITE 7 0fe:00:12337451 0 EOF\n", 0},
		{"pid not known", "1: FLOCK  ADVISORY  WRITE 0 fe:00:12337451 0 EOF\n", 0},
		{"no locks", "", 0},
		{"a short line", "1: FLOCK\n", 0},
	} {
		if got := holderIn([]byte(c.locks), maj, min, ino); got != c.want {
			t.Errorf("%s: holder %d, want %d", c.name, got, c.want)
		}
	}
	if got := holderIn([]byte("1: FLOCK  ADVISORY  WRITE 5 103:02:77 0 EOF\n"), 0x103, 2, 77); got != 5 {
		t.Errorf("a major number of three hex digits: holder %d, want 5", got)
	}
}

// mountDev reads the device number of a mount from mountinfo's lines as
// Linux writes them: on btrfs it is the file system's, which /proc/locks
// names, not the subvolume's that stat gives.
func TestMountDev(t *testing.T) {
	const mountinfo = `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
67 46 0:40 / /srv/spool rw,relatime - btrfs /dev/loop0 rw,space_cache=v2,subvolid=5,subvol=/
68 46 0:41 /@home /home rw,relatime shared:12 - btrfs /dev/nvme0n1p3 rw,subvolid=257,subvol=/@home
99 27 1a:0 / /bad rw - ext4 /dev/x rw
`
	for _, c := range []struct {
		id       uint64
		maj, min uint32
		ok       bool
	}{
		{27, 254, 0, true},
		{67, 0, 40, true},
		{68, 0, 41, true},
		{2, 0, 0, false},  // no such mount (not the "27" of another field)
		{99, 0, 0, false}, // a device number not in decimal
	} {
		maj, min, ok := mountDev([]byte(mountinfo), c.id)
		if maj != c.maj || min != c.min || ok != c.ok {
			t.Errorf("mount %d: %d:%d %v, want %d:%d %v", c.id, maj, min, ok, c.maj, c.min, c.ok)
		}
	}
}

// StopHolder names the pid to kill where it is known, and else where
// lslocks names it.
func TestStopHolder(t *testing.T) {
	for _, c := range []struct {
		pid  int
		want string
	}{
		{812, "systemctl stop setmatchd, or kill 812"},
		{0, "systemctl stop setmatchd where it is the service, else kill it: lslocks names its pid, the FLOCK of /var/spool/setmatch/cur"},
	} {
		if got := StopHolder(c.pid, "/var/spool/setmatch/cur"); got != c.want {
			t.Errorf("pid %d: %q, want %q", c.pid, got, c.want)
		}
	}
}
