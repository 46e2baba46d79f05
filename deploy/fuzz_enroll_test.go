package deploy

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"setmatch/method"
	"setmatch/model"
	"setmatch/setfile"
)

// FuzzEnroll: any bytes handed to setmatch enroll as a set's file, read as
// it reads one (setfile.Read by the name's extension, of any width), under
// any label, are enrolled into a model of each kind (nearest neighbour in
// the full space and after a learned W, kFDA, a vote), or refused with an
// error that says something and leaves the model as it was: never a
// panic. A model enrolled into is one setmatchd can use: it encodes, its
// file decodes, its matcher builds and decides the set enrolled.
func FuzzEnroll(f *testing.F) {
	all, labels, names := ringSets(4, 2, 2, 0.6, 61)
	var files [][]byte
	for _, mname := range []method.Name{method.NNH, method.NNHDR, method.KFDAHG, voteMethod} {
		m := buildFor(f, mname, all, labels, names, "")
		var b bytes.Buffer
		if err := model.Encode(&b, m); err != nil {
			f.Fatal(err)
		}
		files = append(files, b.Bytes())
	}
	more, _, _ := ringSets(5, 1, 2, 0.6, 62) // a fifth class, and sets like the gallery's
	for i, x := range more {
		var csv, npy bytes.Buffer
		if err := setfile.WriteCSV(&csv, x); err != nil {
			f.Fatal(err)
		}
		if err := setfile.WriteNPY(&npy, x); err != nil {
			f.Fatal(err)
		}
		f.Add(csv.Bytes(), true, uint8(i), "new")
		f.Add(npy.Bytes(), false, uint8(i+1), labels[2*i%len(labels)])
	}
	f.Add([]byte("1,2,3,4,5,6\n1,2,3,4,5,6\n"), true, uint8(0), "twin")    // two identical frames
	f.Add([]byte("1,2,3,4,5,6\n1,2,3,4,5,7e150\n"), true, uint8(1), "big") // a value of 7e150
	f.Add([]byte("1,2,3\n4,5,6\n"), true, uint8(2), "narrow")              // of another width
	f.Add([]byte("1,2,3,4,5,6\n2,1,3,4,5,6\n"), true, uint8(3), "unknown") // a reserved label
	f.Fuzz(func(t *testing.T, data []byte, csv bool, which uint8, label string) {
		name := "set.npy"
		if csv {
			name = "set.csv"
		}
		x, err := setfile.Read(bytes.NewReader(data), name, setfile.Limits{MaxBytes: 1 << 14, MaxRows: 32, MaxCols: 16})
		if err != nil {
			return
		}
		orig := files[int(which)%len(files)]
		m, err := model.DecodeBytes(orig)
		if err != nil {
			t.Fatal(err)
		}
		c, eerr := Enroll(m, []model.NewSet{{Label: label, Name: "fuzz", Frames: x}}, nil, 1, time.Unix(0, 0))
		if eerr != nil {
			if strings.TrimSpace(eerr.Error()) == "" {
				t.Fatal("empty error")
			}
			var b bytes.Buffer
			if err := model.Encode(&b, m); err != nil || !bytes.Equal(b.Bytes(), orig) {
				t.Fatalf("enrolment refused (%v), but the model changed (%v)", eerr, err)
			}
			return
		}
		if c == nil || c.GallerySets != len(m.Sets) {
			t.Fatalf("change %+v of a gallery of %d sets", c, len(m.Sets))
		}
		var b bytes.Buffer
		if err := model.Encode(&b, m); err != nil {
			t.Fatalf("enrolled %q, but the model does not encode: %v", label, err)
		}
		back, err := model.DecodeBytes(b.Bytes())
		if err != nil {
			t.Fatalf("enrolled %q, but the model's file does not decode: %v", label, err)
		}
		mt, err := back.NewMatcherWorkers(1)
		if err != nil {
			t.Fatalf("enrolled %q, but the model has no matcher: %v", label, err)
		}
		if _, err := mt.Match(x); err != nil {
			t.Fatalf("enrolled %q, but the set enrolled is not decided: %v", label, err)
		}
	})
}
