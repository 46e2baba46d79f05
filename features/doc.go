// Package features turns image frames into feature vectors: image decoding
// (PNG, JPEG, PGM), the frame features used for image-set matching (raw
// intensities, uniform LBP histograms, HOG, equalised grey-level
// histograms), PCA, and the feature spec strings that name a pipeline on
// the command line.
//
// Every feature maps one 8-bit grey image to one []float64 and is
// deterministic. Resizing is done in exact integer arithmetic, so resized
// images are identical on every architecture; LBP and histogram features
// are then exact, intensity and HOG differ across architectures by
// rounding only.
//
// # Decoding
//
// DecodeImageFile and Decode recognise the format from the content: PNG and
// JPEG through the standard library, PGM (P5 binary with 8- or 16-bit
// samples, P2 plain) through DecodePGM. Colour is converted to grey with
// color.GrayModel (BT.601 luma 0.299 R + 0.587 G + 0.114 B); PGM samples
// are rescaled to 0..255 as round(v·255/maxval). Images of more than
// MaxPixels pixels or files of more than MaxFileBytes bytes are refused
// before pixel memory is allocated. Errors are *Error values naming the file
// and wrapping ErrFormat, ErrTooLarge or the I/O error.
//
// # Resizing
//
// Features that resize (intensity:WxH and the @WxH suffix) resize each axis
// separately. An axis that shrinks is area-averaged (box filter): output
// pixel j of an axis of length src resized to dst averages the source
// interval [j·src/dst, (j+1)·src/dst), each source pixel weighted by its
// overlap. An axis that grows is interpolated linearly with pixel centres
// aligned: output j samples source position (j+½)·src/dst − ½, clamped to
// [0, src−1]. See Resize.
//
// # Features
//
// intensity:WxH — the image resized to W×H, read row by row as grey
// level/255 in [0, 1]. Dimension W·H. With :norm, each frame is centred and
// scaled to unit Euclidean norm (a constant frame gives zeros).
//
// lbp:GXxGY[@WxH] — uniform local binary patterns LBP(8,1). For each pixel
// not on the image border, bit p of its 8-bit code is 1 when neighbour p is
// at least as bright as the centre; neighbours are the 8 adjacent pixels
// (no interpolation) in the order east, north-east, north, north-west, west,
// south-west, south, south-east (y grows downwards), bit 0 first. Codes
// with at most two circular 0/1 transitions are uniform (58 of them) and
// get bins 0..57 in increasing code order; all other codes share bin 58.
// Pixel (x, y) of a w×h image belongs to cell (⌊x·GX/w⌋, ⌊y·GY/h⌋); each
// cell's 59-bin histogram is divided by its number of interior pixels, and
// the cells are concatenated row by row. Dimension GX·GY·59. With @WxH the
// image is resized to W×H first.
//
// hog:C[@WxH] — histograms of oriented gradients (Dalal–Triggs style) on
// intensities in [0, 1]: gradients with the [−1, 0, 1] filter in x and y
// (edge pixels repeated at the border), magnitude √(gx²+gy²), unsigned
// orientation atan2(gy, gx) folded into [0°, 180°), where 0° is a
// horizontal gradient (a vertical edge). Nine bins centred at 0°, 20°, …,
// 160°; each pixel's magnitude is split linearly between the two nearest
// centres (160° and 0° are neighbours). Cells of C×C pixels from the
// top-left corner (⌊w/C⌋×⌊h/C⌋ of them, leftover pixels ignored); blocks of
// 2×2 cells with a stride of one cell, each block's 36 values L2-Hys
// normalised (L2 with ε = 1e-5, clip at 0.2, L2 again); blocks concatenated
// row by row. Dimension (⌊w/C⌋−1)·(⌊h/C⌋−1)·36, e.g. 1764 for hog:8@64x64.
//
// hist:B[:plain][@WxH] — a B-bin histogram of histogram-equalised grey
// levels, divided by the number of pixels. With N pixels, c(v) the number
// of pixels at level ≤ v and c_min the count of the darkest level present,
// level v is equalised to e(v) = (c(v) − c_min)/(N − c_min) (0 for a
// constant image) and counted in bin min(⌊B·e(v)⌋, B−1). With :plain, level
// v (0..255) is counted in bin ⌊v·B/256⌋ without equalisation. Dimension B.
// With @WxH the image is resized and rounded to grey levels first.
//
// # PCA
//
// +pca:N asks for principal component analysis to N dimensions. A Pipeline
// never fits it: the caller fits FitPCA on the training frames only and
// applies PCA.Transform to every frame, so that no information from probe
// sets leaks into the features. Components are orthonormal, ordered by
// decreasing variance, and sign-normalised (largest-magnitude entry
// positive), so a fit is reproducible.
//
// # Fitted pipelines and image sets
//
// Fitted is a pipeline ready to apply: the spec and, for +pca:N, the PCA
// fitted on training frames (FitPipeline); a model stores it with
// MarshalBinary. Its readers turn the images of one set into the set's
// n×D matrix, one row per frame: Apply (decoded images), ApplyFiles (files;
// ImageSetReader gives it in the shape dataset.Options.Images takes),
// ApplyBurst (a burst directory confined to an os.Root, with ImageLimits
// checked before any pixel memory is allocated), ApplyDir (a folder given
// on a command line, read as a burst) and ApplyOpenBurst (a burst listed
// once, OpenBurst, or from a folder the caller opened, BurstOf: the
// daemon's). All of them share one decoding and extraction path, so they
// give the same numbers for the same images. When the spec does not resize
// (lbp, hog and hist without @WxH), the frames of one set must have one
// size.
//
// A Loader reads the image sets of a data set before the PCA, for
// training and evaluation alike, and fits the pipeline on the training
// frames (loader.go); SplitTransform is the feature step of an evaluation
// split, the PCA fitted on its gallery (split.go).
//
// # Spec grammar
//
//	spec      = feature [ "+pca:" N ]
//	feature   = "intensity:" W "x" H [ ":norm" ]
//	          | "lbp:" GX "x" GY [ "@" W "x" H ]
//	          | "hog:" C [ "@" W "x" H ]
//	          | "hist:" B [ ":plain" ] [ "@" W "x" H ]
//
// All numbers are positive decimal integers: W, H ≤ 4096, GX, GY ≤ 64,
// C ≤ 256, B ≤ 256, N ≤ 65536; and a frame gives at most MaxDim (65536)
// features, what the readers of feature files take: Parse refuses
// intensity:4096x4096, lbp:64x64 or hog:1@4096x4096, and hog without a
// size refuses an image on which it would give more. Examples: intensity:20x20, lbp:4x4,
// lbp:4x4@64x64, hog:8@64x64, hist:32, intensity:20x20+pca:50. Parse
// reads a spec and Pipeline.Name gives it back in canonical form.
package features
