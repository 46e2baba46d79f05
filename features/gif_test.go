package features

import (
	"bytes"
	"image"
	"image/gif"
	"strings"
	"testing"
)

// TestRegisteredFormatNotRead: a format another package registers with the
// image package (here GIF, registered by importing image/gif into this
// test binary) is not read: only PNG, JPEG and PGM are.
func TestRegisteredFormatNotRead(t *testing.T) {
	var b bytes.Buffer
	if err := gif.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 4)), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := image.DecodeConfig(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatalf("GIF not registered in the test binary: %v", err)
	}
	if _, err := Decode(bytes.NewReader(b.Bytes()), "x.gif"); err == nil || !strings.Contains(err.Error(), "GIF images are not read") {
		t.Errorf("a GIF: %v, want it refused", err)
	}
}
