package manpage

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// level is a flag.Value that is not one of the flag package's own.
type level int

var _ flag.Value = (*level)(nil)

func (l *level) String() string     { return [...]string{"low", "high"}[*l&1] }
func (l *level) Set(s string) error { *l = map[string]level{"low": 0, "high": 1}[s]; return nil }

func examplePage() Page {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.String("config", "/etc/demo.toml", "configuration `file`")
	fs.Bool("check", false, "validate and exit")
	fs.Int("workers", 0, "goroutines (0: one per CPU)")
	fs.Float64("nu", 5, "neighbours ν_w of each set")
	fs.String("empty", "", "a string whose default is empty")
	l := level(1)
	fs.Var(&l, "level", "`LEVEL`: low or high")
	sub := flag.NewFlagSet("demo run", flag.ContinueOnError)
	sub.Bool("json", false, "print JSON")
	return Page{
		Name: "demo", Section: 8, Date: "2026-11-22", Source: "demo 1.0", Manual: "System Administration",
		Summary:  "a daemon for tests",
		Synopsis: []string{"[-config file]", "-check"},
		Description: []string{
			".starts with a dot, has a back\\slash and a 'quote'",
			"second paragraph: 3 µs per — set",
		},
		Flags:    fs,
		Commands: []Command{{Name: "run", Summary: "run it", Synopsis: "[--json] FILE", Flags: sub}, {Name: "version", Summary: "print the version"}},
		Sections: []Section{
			{Title: "Files", Paragraphs: []string{"\t/etc/demo.toml\n\t.hidden", "prose after"}},
		},
	}
}

// TestWriteGolden compares the page of examplePage with
// testdata/demo.8; go test -update rewrites it.
func TestWriteGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, examplePage()); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "demo.8")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("page differs from %s (go test -update rewrites it):\n%s", golden, b.String())
	}
}

// TestFlagsAsHelp checks that every flag appears with its placeholder and
// that defaults are shown exactly when -h shows them.
func TestFlagsAsHelp(t *testing.T) {
	p := examplePage()
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	var help bytes.Buffer
	p.Flags.SetOutput(&help)
	p.Flags.PrintDefaults()
	p.Flags.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(page, `\fB\-`+f.Name+`\fR`) {
			t.Errorf("flag -%s missing", f.Name)
		}
		helpHasDefault := strings.Contains(help.String(), "(default "+quoteIfString(f)+")")
		pageHasDefault := strings.Contains(page, escape("(default "+quoteIfString(f)+")"))
		if helpHasDefault != pageHasDefault {
			t.Errorf("flag -%s: default shown by -h %v, by the page %v", f.Name, helpHasDefault, pageHasDefault)
		}
	})
	for _, want := range []string{`\fB\-config\fR \fIfile\fR`, `\fB\-level\fR \fILEVEL\fR`, `\fB\-check\fR` + "\n", `\fB\-workers\fR \fIint\fR`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func quoteIfString(f *flag.Flag) string {
	if isString(f) {
		return `"` + f.DefValue + `"`
	}
	return f.DefValue
}

// TestGroffClean formats the page with groff and its warnings on, as
// lintian does: no warning may come out.
func TestGroffClean(t *testing.T) {
	groff := testutil.Tool(t, "groff", "groff-base") // lintian brings it
	var b bytes.Buffer
	if err := Write(&b, examplePage()); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = &b
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("groff did not finish within 30 s")
	}
	if err != nil || stderr.Len() > 0 {
		t.Errorf("groff: %v\n%s", err, stderr.String())
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"--json":      `\-\-json`,
		".TH x":       `\&.TH x`,
		"a\n'b":       "a\n\\&'b",
		`a\b`:         `a\eb`,
		"ν_w":         `\[u03BD]_w`,
		"it's. fine.": "it's. fine.",
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteRefusesIncompletePage(t *testing.T) {
	if err := Write(new(bytes.Buffer), Page{Name: "x"}); err == nil {
		t.Error("a page without section and summary was written")
	}
}

func TestDateFromEpoch(t *testing.T) {
	for in, want := range map[string]string{"": "", "0": "1970-01-01", "1795424951": "2026-11-23"} {
		got, err := DateFromEpoch(in)
		if err != nil || got != want {
			t.Errorf("DateFromEpoch(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := DateFromEpoch("yesterday"); err == nil || !strings.Contains(err.Error(), "seconds since 1970") {
		t.Errorf("DateFromEpoch(yesterday): %v, want an error that says what is expected", err)
	}
}
