package unitpaths

import "testing"

// TestReadOnlyAdvice: the advice names every folder the unit lets the
// daemon write, the folder to allow, the drop-in that allows it and the
// read-only mount.
func TestReadOnlyAdvice(t *testing.T) {
	got := ReadOnlyAdvice("this spool", "/srv/camera-spool")
	want := "under the packaged unit setmatchd may write only /var/lib/setmatch and /var/spool/setmatch; allow this spool with a drop-in (sudo systemctl edit setmatchd, then [Service] ReadWritePaths=/srv/camera-spool), or, where the file system itself is mounted read-only (an SD card is remounted so after write errors: see dmesg), repair it"
	if got != want {
		t.Errorf("ReadOnlyAdvice = %q, want %q", got, want)
	}
}
