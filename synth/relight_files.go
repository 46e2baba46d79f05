package synth

import (
	"fmt"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"setmatch/dataset"
	"setmatch/features"
	"setmatch/internal/bytesize"
)

// MaxRelightSources bounds the source images of one class: WriteRelit
// holds them all in memory (one byte a pixel) while the class's sets are
// written.
const MaxRelightSources = 10000

// MaxRelightPixels bounds the pixels of the source images of one class
// WriteRelit holds at once (a variable for tests).
var MaxRelightPixels = 1 << 28

// PixelsError is the error of WriteRelit for a class whose source
// images hold more than MaxRelightPixels pixels.
type PixelsError struct{ Class string }

// Error names the class and the limit, and what to do.
func (e *PixelsError) Error() string {
	return fmt.Sprintf("the images of class %s hold more than %d pixels, more than is kept in memory at once; scale them down (faces of 100×100 pixels are plenty) or use fewer", e.Class, MaxRelightPixels)
}

// RelightClass is a class folder of a relight source and its image files.
type RelightClass struct {
	Name  string
	Files []string
}

// RelightSources lists the class folders of src (hidden ones skipped)
// and the image files under each, at any depth, in lexical order.
func RelightSources(src string) ([]RelightClass, error) {
	ents, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("%w; give a folder of class folders of images, such as the ORL faces", err)
	}
	var out []RelightClass
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		cl := RelightClass{Name: e.Name()}
		dir := filepath.Join(src, e.Name())
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && p != dir {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && dataset.IsImage(d.Name()) {
				if len(cl.Files) == MaxRelightSources {
					return fmt.Errorf("class %s has more than %d images; use a folder with fewer", cl.Name, MaxRelightSources)
				}
				cl.Files = append(cl.Files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(cl.Files) == 0 {
			return nil, fmt.Errorf("class folder %s holds no image (PNG, JPEG, PGM); every folder of %s is a class", dir, src)
		}
		out = append(out, cl)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no class folders; want %s/<class>/<image>, as the ORL faces are laid out", src, src)
	}
	return out, nil
}

// CheckSources reads every image of classes, one at a time, and reports
// before anything is written what WriteRelit would meet on the way: an
// image that does not decode, a class whose images hold more than
// MaxRelightPixels pixels (a *PixelsError), or a data set over
// MaxImageBytes, each frame counted at the mean size of its class's
// images.
func (o RelightOptions) CheckSources(classes []RelightClass) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	size := 0.0
	for _, cl := range classes {
		_, pixels, err := decodeClass(cl)
		if err != nil {
			return err
		}
		size += float64(o.Sets) * float64(o.Frames) * float64(pixels) / float64(max(len(cl.Files), 1))
	}
	if size > MaxImageBytes {
		got, limit := bytesize.Over(size, MaxImageBytes)
		return fmt.Errorf("%d classes × %d sets × %d frames of their images are about %s of PNG frames, over the limit of %s: lower --frames or --sets, or scale the images down", len(classes), o.Sets, o.Frames, got, limit)
	}
	return nil
}

// decodeClass decodes the source images of cl and counts their pixels,
// refusing a class whose images hold more than MaxRelightPixels pixels (a
// *PixelsError) as soon as they pass it. CheckSources decodes them all
// once before anything is written, and WriteRelit again, a class at a
// time, so that one class's images are held at once: a second decode of
// the sources, which are far fewer than the frames lit from them.
func decodeClass(cl RelightClass) (imgs []*image.Gray, pixels int, err error) {
	imgs = make([]*image.Gray, len(cl.Files))
	for i, p := range cl.Files {
		if imgs[i], err = features.DecodeImageFile(p); err != nil {
			return nil, 0, err
		}
		if pixels += len(imgs[i].Pix); pixels > MaxRelightPixels {
			return nil, 0, &PixelsError{Class: cl.Name}
		}
	}
	return imgs, pixels, nil
}

// WriteRelit writes the images of every class under strong synthetic
// lighting (RelightOptions.relightSet), opt.Sets sets a class, as
// dir/<class>/<set>/f000.png…, frame by frame: a class's source images
// are held while its sets are written, but only one frame of them.
// CheckSources checks beforehand what it would refuse on the way.
func WriteRelit(dir string, classes []RelightClass, opt RelightOptions) error {
	for c, cl := range classes {
		imgs, _, err := decodeClass(cl)
		if err != nil {
			return err
		}
		for s := range opt.Sets {
			err := writeSet(filepath.Join(dir, cl.Name, SetName(s, opt.Sets)), opt.Frames, func(emit func(*image.Gray) error) error {
				return opt.relightSet(imgs, c, s, emit)
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}
