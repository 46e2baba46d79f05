package device

import (
	"strings"
	"testing"
	"time"
)

// TestOverTimeError: the reason of a batch over daemon.batch_timeout
// gives its frames where they were counted (a burst's listing, a batch
// read in full), not "0 frames" for a batch file whose read the limit
// cut short, and names the limits of its kind.
func TestOverTimeError(t *testing.T) {
	for _, tc := range []struct {
		frames    int
		burst     bool
		want, not string
	}{
		{0, false, "batch big.npy was not read and matched within daemon.batch_timeout = 2m0s: send smaller batches (spool.max_frames)", "0 frames"},
		{9000, false, "batch big.npy (9000 frames) was not read and matched within daemon.batch_timeout = 2m0s: send smaller batches", "max_burst_frames"},
		{40, true, "batch big.npy (40 frames) was not read and matched within daemon.batch_timeout = 2m0s: send shorter bursts or smaller frames (spool.max_burst_frames, spool.max_frame_pixels)", "spool.max_frames"},
	} {
		got := overTimeError("big.npy", tc.frames, tc.burst, 2*time.Minute).Error()
		if !strings.HasPrefix(got, tc.want) || strings.Contains(got, tc.not) {
			t.Errorf("%d frames, burst %v: %q, want it to begin %q and not to say %q", tc.frames, tc.burst, got, tc.want, tc.not)
		}
	}
}
