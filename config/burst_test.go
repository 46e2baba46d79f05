package config

import (
	"testing"

	"setmatch/features"
)

// TestBurstDefaults checks that the burst limits of the spool default to
// the features package's limits for a burst, so that setmatchd and
// `setmatch features` refuse the same bursts out of the box.
func TestBurstDefaults(t *testing.T) {
	s := Default().Spool
	d := features.DefaultBurstLimits()
	if s.MaxBurstFrames != d.MaxFrames || s.MaxFramePixels != d.MaxPixels || int64(s.MaxFrameBytes) != d.MaxFileBytes {
		t.Errorf("spool burst limits %d frames, %d pixels, %d bytes; features.DefaultBurstLimits %+v",
			s.MaxBurstFrames, s.MaxFramePixels, s.MaxFrameBytes, d)
	}
}
