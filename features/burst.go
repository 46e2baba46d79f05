package features

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/regfile"
)

// A burst is a directory of frame images, one set: the way a camera hands
// frames to the appliance. ApplyBurst reads one.

// burstExts are the file name extensions a burst frame may have (compared
// in lower case). The format itself is recognised from the content.
var burstExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".pgm": true}

// IsBurstFrame reports whether name has the extension of a burst frame
// (OpenBurst): a file so named, alone, is one frame and not a set.
func IsBurstFrame(name string) bool { return burstExts[strings.ToLower(path.Ext(name))] }

// BurstFrame is one entry of a burst that passed the listing checks.
type BurstFrame struct {
	Name string      // file name inside the burst
	Info fs.FileInfo // from the listing (not following links)
}

// Burst is a burst listed and checked (OpenBurst, BurstOf), its folder
// held open: Fitted.ApplyOpenBurst reads exactly its Frames, each from
// that folder, so that a caller that records the listing records what is
// decoded.
type Burst struct {
	Frames []BurstFrame // in byte order of their names
	root   *os.Root
	dir    string
	d      *os.File // the burst's folder, open
	lim    ImageLimits
}

// OpenBurst lists the burst directory dir under root and checks it before
// any frame is read, and keeps its folder open until Close: dir is a
// directory (not a link to one); it holds at least one and at most
// lim.MaxFrames entries; every entry is a regular file (no
// sub-directories, symbolic links, pipes or devices) named *.png, *.jpg,
// *.jpeg or *.pgm (any case; hidden files are refused like any other) of 1
// to lim.MaxFileBytes bytes. Frames come back in byte order of their
// names. At most lim.MaxFrames+1 entries are ever read from the directory,
// and one name more where one of them was gone before it was looked at.
func OpenBurst(root *os.Root, dir string, lim ImageLimits) (*Burst, error) {
	if err := lim.Check(); err != nil {
		return nil, err
	}
	d, err := openBurstDir(root, dir)
	if err != nil {
		return nil, err
	}
	return BurstOf(root, dir, d, lim)
}

// BurstOf lists and checks the burst folder d, open, which is dir under
// root, as OpenBurst does, reading nothing by name but the entries of d:
// each entry's facts are read from d's descriptor (fstatat on unix), not
// by a path through dir, so what is listed is in the folder opened, even
// if dir names another folder by then. A d that is not a folder cannot
// be listed and is refused. The Burst takes d: its Close closes it, and
// on an error d is closed too. dir names the files in messages (and,
// where there is no openat, is the path a frame is opened by under root
// and compared with after the open, regfile.OpenIn).
func BurstOf(root *os.Root, dir string, d *os.File, lim ImageLimits) (*Burst, error) {
	if err := lim.Check(); err != nil {
		d.Close()
		return nil, err
	}
	dir = trimDir(dir)
	frames, err := listOpen(d, root, dir, burstLabel(root, dir, ""), lim)
	if err != nil {
		d.Close()
		return nil, err
	}
	return &Burst{Frames: frames, root: root, dir: dir, d: d, lim: lim}, nil
}

// Close closes the burst's folder.
func (b *Burst) Close() error { return b.d.Close() }

// trimDir returns dir without a trailing slash: "cur/b1/" is the folder
// b1 of cur, not a name "" in cur/b1 (path.Base would give "b1", path.Dir
// "cur/b1"). "/" stays.
func trimDir(dir string) string {
	if d := strings.TrimRight(dir, "/"); d != "" {
		return d
	}
	return dir
}

// openBurstDir opens the burst folder dir under root from its parent's
// descriptor, never through a link (openIn), and refuses what is not a
// folder: what is listed (BurstOf) is what was opened.
func openBurstDir(root *os.Root, dir string) (*os.File, error) {
	label := burstLabel(root, dir, "")
	dir = trimDir(dir)
	parent, err := root.Open(path.Dir(dir))
	if err != nil {
		return nil, &Error{Path: label, Msg: "cannot open burst", Err: err}
	}
	d, err := openIn(root, path.Dir(dir), parent, path.Base(dir), regfile.Dir)
	parent.Close()
	if err != nil {
		// Only to say what is there instead.
		if li, lerr := root.Lstat(dir); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return nil, formatErr(label, "the burst is a symbolic link: rename the burst directory itself into the spool")
		} else if lerr == nil && !li.IsDir() {
			return nil, formatErr(label, "not a directory (%v): a burst is a directory of frame images", li.Mode().Type())
		}
		return nil, &Error{Path: label, Msg: "cannot open burst", Err: err}
	}
	return d, nil
}

// listOpen lists and checks the open burst folder d (dir under root). The
// entries and their facts come from d's descriptor: Readdir stats each
// from it (fstatat on unix), where the Info of ReadDir's entries would
// stat each by its path, through dir's name again, for a folder not
// opened through an os.Root. Where there is no fstatat, each entry is
// looked up again by its path under root (statEntries), as its frame is
// opened there. An entry gone before its stat is left out, but a burst
// over the limit is refused all the same.
func listOpen(d *os.File, root *os.Root, dir, label string, lim ImageLimits) ([]BurstFrame, error) {
	infos, err := readdir(d, lim.MaxFrames+1)
	if err != nil && err != io.EOF {
		return nil, &Error{Path: label, Msg: "cannot list burst", Err: err}
	}
	if statByPath {
		if infos, err = statEntries(root, dir, infos); err != nil {
			return nil, &Error{Path: label, Msg: "cannot list burst", Err: err}
		}
	}
	over := len(infos) > lim.MaxFrames
	if !over {
		// Readdir leaves out an entry gone between the folder's read and
		// its stat, but counts it toward the n it reads: entries may
		// remain after those n, and the burst holds more than the limit.
		more, err := d.Readdirnames(1)
		if err != nil && err != io.EOF {
			return nil, &Error{Path: label, Msg: "cannot list burst", Err: err}
		}
		over = len(more) > 0
	}
	if over {
		return nil, limitErr(label, "the burst holds more than %d entries, the limit of frames per burst: send fewer frames or raise the frame limit", lim.MaxFrames)
	}
	if len(infos) == 0 {
		return nil, formatErr(label, "the burst is empty: write the frame images into tmp/NAME/ before renaming it into new/")
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name() < infos[j].Name() })
	frames := make([]BurstFrame, 0, len(infos))
	for _, info := range infos {
		name := burstLabel(root, dir, info.Name())
		switch t := info.Mode().Type(); {
		case t&fs.ModeSymlink != 0:
			return nil, formatErr(name, "is a symbolic link: write the frame file itself into the burst (links are not followed)")
		case t.IsDir():
			return nil, formatErr(name, "is a directory: a burst holds frame images only, no sub-directories")
		case !t.IsRegular():
			return nil, formatErr(name, "is not a regular file (%v): a burst holds frame images only", t)
		}
		if !IsBurstFrame(info.Name()) {
			return nil, formatErr(name, "is not a frame image: a burst holds only .png, .jpg, .jpeg and .pgm files, nothing else")
		}
		if info.Size() > lim.MaxFileBytes {
			return nil, limitErr(name, "file is %d bytes, more than the limit of %d per frame: send smaller frames (e.g. JPEG) or raise the limit", info.Size(), lim.MaxFileBytes)
		}
		if info.Size() == 0 {
			return nil, formatErr(name, "file is empty (want a PNG, JPEG or PGM image)")
		}
		frames = append(frames, BurstFrame{Name: info.Name(), Info: info})
	}
	return frames, nil
}

// readdir is (*os.File).Readdir; a test makes an entry go between the
// folder's read and its stat.
var readdir = (*os.File).Readdir

// statByPath is entriesStatByPath; a test sets it on unix.
var statByPath = entriesStatByPath

// statEntries returns infos, the entries Readdir listed in the folder dir
// under root, each looked up again by its path under root (Lstat: a link
// stays a link), which gives its file identity where Readdir's facts hold
// none (entriesStatByPath). An entry gone since it was listed is left
// out, as Readdir leaves out one gone before its stat.
func statEntries(root *os.Root, dir string, infos []fs.FileInfo) ([]fs.FileInfo, error) {
	out := infos[:0]
	for _, info := range infos {
		fi, err := root.Lstat(path.Join(dir, info.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fi)
	}
	return out, nil
}

// openIn opens name, one name in the folder d (dir under root), without
// following a link at it and without blocking (regfile.OpenIn); the file
// and its errors carry the path messages show (burstLabel).
func openIn(root *os.Root, dir string, d *os.File, name string, want regfile.Kind) (*os.File, error) {
	return regfile.OpenIn(root, dir, d, name, want, burstLabel(root, dir, name))
}

// ApplyBurst turns the burst directory dir under root into its n×OutputDim
// feature matrix, one row per frame in byte order of the file names: the
// rows Apply (and so training) computes for the same images.
//
// Every name is resolved inside root (so a daemon passes its confined spool
// root and dir = "cur/NAME"; a command passes os.OpenRoot(DIR) and "."),
// links are refused (the burst and each frame are opened without following
// a link, each frame from the burst's open folder, and a frame file must be
// the very file the listing saw) and opens never block. The
// checks, each refusing the whole burst with an *Error that says what is
// wrong and what to do:
//
//   - before any frame is read, those of OpenBurst (a directory of 1 to
//     lim.MaxFrames regular image files, each of at most lim.MaxFileBytes
//     bytes, no sub-directories, links or other files);
//   - per frame, before its pixels are decoded: the file is still the one
//     listed, of the size listed, and a regular file within
//     lim.MaxFileBytes; its header is PNG,
//     JPEG or PGM (P2/P5) whatever the extension says, of at most
//     lim.MaxPixels pixels; when the pipeline does not resize (lbp, hog and
//     hist without @WxH), it has the size of the first frame;
//   - then the image decodes whole (truncated or corrupt data are refused).
//
// Frames are decoded one at a time: beyond the result, reading costs one
// frame file, its decoded image (up to 8 bytes per pixel) with the
// decoder's buffers (a progressive JPEG's: 4 bytes per pixel per colour
// component) and its grey copy, which the features read in place.
func (f Fitted) ApplyBurst(root *os.Root, dir string, lim ImageLimits) (*mat.Dense, error) {
	b, err := OpenBurst(root, dir, lim)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return f.ApplyOpenBurst(context.Background(), b)
}

// ApplyOpenBurst is ApplyBurst on the burst b, listed and checked
// (OpenBurst): its n×OutputDim feature matrix, one row for each of
// b.Frames, each frame checked and decoded as ApplyBurst says. A frame
// added to the folder after the listing is not read. It gives up with
// ctx's error when ctx ends, checked before each frame is read (a frame
// being decoded is finished first), as a daemon does for a burst over its
// time limit or at a stop.
func (f Fitted) ApplyOpenBurst(ctx context.Context, b *Burst) (*mat.Dense, error) {
	x, _, err := f.applySource(ctx, len(b.Frames), func(i int) string { return burstLabel(b.root, b.dir, b.Frames[i].Name) },
		func(i int) ([]byte, error) {
			name := burstLabel(b.root, b.dir, b.Frames[i].Name)
			fh, err := openIn(b.root, b.dir, b.d, b.Frames[i].Name, regfile.Any)
			if err != nil {
				return nil, &Error{Path: name, Msg: "cannot open frame", Err: err}
			}
			defer fh.Close()
			return readRegular(fh, name, b.lim.MaxFileBytes, b.Frames[i].Info)
		}, b.lim)
	return x, err
}

// ApplyDir is ApplyBurst on the folder dir itself, as a command reads a
// set given on its command line. When the folder cannot be opened, the
// error is a *DirError (the caller says what the folder was to be).
func (f Fitted) ApplyDir(dir string, lim ImageLimits) (*mat.Dense, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &DirError{Err: err}
	}
	defer root.Close()
	return f.ApplyBurst(root, ".", lim)
}

// DirError is the error of ApplyDir when its folder cannot be opened.
type DirError struct{ Err error }

// Error says what opening the folder said.
func (e *DirError) Error() string { return e.Err.Error() }

// Unwrap returns the error of opening the folder.
func (e *DirError) Unwrap() error { return e.Err }

// burstLabel names dir/name under root in messages.
func burstLabel(root *os.Root, dir, name string) string {
	return filepath.Join(root.Name(), filepath.FromSlash(dir), name)
}
