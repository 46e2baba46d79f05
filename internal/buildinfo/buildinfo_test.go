package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersion: a stamped version is reported as it is; without one, the
// module version or devel, never "" nor Go's "(devel)".
func TestVersion(t *testing.T) {
	if v := Version("1.2.3"); v != "1.2.3" {
		t.Errorf("Version(1.2.3) = %q, want 1.2.3", v)
	}
	if v := Version(""); v == "" || v == "(devel)" {
		t.Errorf("Version(\"\") = %q, want a version or devel", v)
	}
}

// TestLine: the version line names the program, its version, Go's release
// and the platform, in that order.
func TestLine(t *testing.T) {
	want := "p 1.2.3 " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	if got := Line("p", "1.2.3"); got != want || strings.Count(got, " ") != 3 {
		t.Errorf("Line = %q, want %q", got, want)
	}
}
