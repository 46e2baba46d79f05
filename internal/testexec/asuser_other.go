//go:build !unix

package testexec

import "testing"

// RunTestAs runs the calling test again as another user on unix; here it
// skips the test.
func RunTestAs(t *testing.T, uid, gid int, groups []int, env ...string) {
	t.Helper()
	t.Skip("running a test as another user takes unix")
}
