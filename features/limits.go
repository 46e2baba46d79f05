package features

import (
	"fmt"
	"math"

	"setmatch/setfile"
)

// ImageLimits bound what reading the frames of one set may cost. Every
// limit is checked before the memory it guards is allocated: the number of
// frames from the directory listing, the file size from the file's metadata
// and the pixel count from the image header.
type ImageLimits struct {
	// MaxFrames is the most frames one set (burst) may hold.
	MaxFrames int
	// MaxPixels is the most pixels (width×height, as the header declares)
	// one frame may have. Decoding a frame holds at most 4 bytes per pixel
	// of MaxPixels (a costlier format, such as a 16-bit PNG or a
	// progressive CMYK JPEG at 24 bytes a pixel of its own, is refused
	// from its header above a smaller size: decodecost.go), plus its grey
	// copy.
	MaxPixels int64
	// MaxFileBytes is the largest frame file read.
	MaxFileBytes int64
}

// Defaults of DefaultBurstLimits.
const (
	DefaultMaxFrames      = 256
	DefaultMaxFramePixels = 4096 * 3072 // 12.6 Mpx: the full sensor of every Raspberry Pi camera
	DefaultMaxFrameBytes  = 32 << 20
	folderMaxFrames       = 1 << 20 // setfile.DefaultLimits().MaxRows
)

// DefaultBurstLimits returns the limits for a burst of camera frames: at
// most 256 frames, 4096×3072 pixels and 32 MiB per frame.
func DefaultBurstLimits() ImageLimits {
	return ImageLimits{MaxFrames: DefaultMaxFrames, MaxPixels: DefaultMaxFramePixels, MaxFileBytes: DefaultMaxFrameBytes}
}

// FolderLimits returns the limits for the image folders of a data set on a
// workstation, as training and evaluation read them: a frame within the
// burst limits (DefaultMaxFramePixels, DefaultMaxFrameBytes), which are what
// setmatchd applies the model's pipeline to, and 2^20 frames per set. Sets
// are read by several workers at once, and each holds one frame's decoding
// at a time, so the worst case is DefaultMaxFramePixels × 5 bytes (the
// decoding's 4 bytes a pixel at most and the grey copy) × workers.
func FolderLimits() ImageLimits {
	return ImageLimits{MaxFrames: folderMaxFrames, MaxPixels: DefaultMaxFramePixels, MaxFileBytes: DefaultMaxFrameBytes}
}

// Check reports whether every limit is positive.
func (l ImageLimits) Check() error {
	if l.MaxFrames < 1 || l.MaxPixels < 1 || l.MaxFileBytes < 1 {
		return fmt.Errorf("features: image limits must all be positive (max frames %d, max pixels %d, max file bytes %d)",
			l.MaxFrames, l.MaxPixels, l.MaxFileBytes)
	}
	return nil
}

// MaxDim is the most features per frame a pipeline may give: the most
// columns the readers of feature files (and so training, evaluation and
// the daemon) accept, setfile.DefaultMaxCols. Parse refuses a spec whose
// dimension is larger, and hog without a size refuses an image on which
// it would give more before extracting anything.
const MaxDim = setfile.DefaultMaxCols

// dimErr is the error for a feature giving d > MaxDim features per frame;
// what says how (e.g. "hog:1@4096x4096"), hint what to take instead.
func dimErr(what string, d int, hint string) error {
	return fmt.Errorf("features: %s gives %d features per frame, more than the %d a feature file or model takes: %s", what, d, MaxDim, hint)
}

// shrinkGrid scales a×b down, keeping its aspect, to at most n cells
// (at least 1 per side).
func shrinkGrid(a, b, n int) (int, int) {
	s := math.Sqrt(float64(n) / (float64(a) * float64(b)))
	a2 := max(1, min(a, int(float64(a)*s)))
	b2 := max(1, min(b, int(float64(b)*s), n/a2))
	return a2, b2
}
