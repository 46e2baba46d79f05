package suggest

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestClosest: the nearest name within two edits (a letter left out,
// added or changed, two swapped), the first of several as near, and none
// beyond two edits, also for an s far longer than any name.
func TestClosest(t *testing.T) {
	names := []string{"features", "frames", "out", "gpio.pulse", "gpio.pin"}
	for _, c := range []struct{ s, want string }{
		{"featues", "features"},
		{"featurse", "features"},
		{"fetaures", "features"},
		{"features", "features"},
		{"framse", "frames"},
		{"gpio.pusle", "gpio.pulse"},
		{"gpio.pn", "gpio.pin"},
		{"ou", "out"},
		{"o", "out"},
		{"", ""},
		{"bogus", ""},
		{"featuresxyz", ""},
		{strings.Repeat("x", 1<<20), ""},
	} {
		if got := Closest(c.s, names); got != c.want {
			t.Errorf("Closest(%.20q) = %q, want %q", c.s, got, c.want)
		}
	}
	// Two as near: the first given.
	if got := Closest("ab", []string{"ax", "xb"}); got != "ax" {
		t.Errorf("Closest(ab, [ax xb]) = %q, want ax", got)
	}
}

// TestFlagMeant: the flag an undefined flag's error meant, with the dashes of
// the command line (one or two, before "=" too), and none for another
// error or a flag far from every one.
func TestFlagMeant(t *testing.T) {
	newFS := func() *flag.FlagSet {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("features", "", "")
		fs.Int("frames", 0, "")
		fs.Bool("json", false, "")
		return fs
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--featues", "lbp"}, "--features"},
		{[]string{"-featues", "lbp"}, "-features"},
		{[]string{"--featues=lbp"}, "--features"},
		{[]string{"--json", "--Frames", "3"}, "--frames"},
		{[]string{"-jsn"}, "-json"},
		{[]string{"--bogus"}, ""},
		{[]string{"--frames", "x"}, ""}, // a bad value
		{[]string{"-h"}, ""},
	} {
		fs := newFS()
		err := fs.Parse(c.args)
		if err == nil {
			t.Fatalf("%q: parsed", c.args)
		}
		if got := flagMeant(fs, c.args, err); got != c.want {
			t.Errorf("flagMeant(%q, %v) = %q, want %q", c.args, err, got, c.want)
		}
	}
	if got := flagMeant(newFS(), nil, nil); got != "" {
		t.Errorf("flagMeant of no error = %q", got)
	}
}

// TestParse: the flag package prints nothing of a malformed command line,
// whose error Parse returns with the flag a mistyped one meant; -h prints
// the usage once, to where fs's Usage writes; fs's Usage and output are
// as they were after every parse; a flag set without a Usage prints its
// flags' defaults for -h.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		args       []string
		wantErr    string
		meant      string
		wantOutput string
	}{
		{[]string{"--json", "a"}, "", "", ""},
		{[]string{"--featues", "lbp"}, "flag provided but not defined: -featues", "--features", ""},
		{[]string{"-bogus"}, "flag provided but not defined: -bogus", "", ""},
		{[]string{"--frames", "x"}, `invalid value "x" for flag -frames: parse error`, "", ""},
		{[]string{"-h"}, flag.ErrHelp.Error(), "", "usage\n"},
		{[]string{"--help"}, flag.ErrHelp.Error(), "", "usage\n"},
	} {
		var out strings.Builder
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(&out)
		fs.Usage = func() { out.WriteString("usage\n") }
		fs.String("features", "", "")
		fs.Int("frames", 0, "")
		fs.Bool("json", false, "")
		meant, err := Parse(fs, c.args)
		if got := fmt.Sprint(err); c.wantErr == "" && err != nil || c.wantErr != "" && got != c.wantErr {
			t.Errorf("Parse(%q) error %v, want %q", c.args, err, c.wantErr)
		}
		if meant != c.meant || out.String() != c.wantOutput {
			t.Errorf("Parse(%q): meant %q, printed %q; want %q, %q", c.args, meant, out.String(), c.meant, c.wantOutput)
		}
		out.Reset()
		fs.Usage()
		fmt.Fprint(fs.Output(), "out\n")
		if out.String() != "usage\nout\n" {
			t.Errorf("Parse(%q): after it, Usage and output wrote %q, want %q", c.args, out.String(), "usage\nout\n")
		}
	}

	var out strings.Builder
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(&out)
	fs.Usage = nil // NewFlagSet gives it the flag package's
	fs.Bool("json", false, "print JSON")
	if _, err := Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "print JSON") {
		t.Errorf("Parse(-h) of a flag set with no Usage: %v, printed %q; want flag.ErrHelp and the flags' defaults", err, out.String())
	}
}
