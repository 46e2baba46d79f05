package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// TestDeepNestingRefused: x = {a={a=…}} 5000 deep (20 KB) is refused
// before it is parsed, with where; parsing it took seconds, and reporting
// every nested key as unknown, with a "did you mean" each, took 50 s, 1.35
// GB and 6 MB of errors.
func TestDeepNestingRefused(t *testing.T) {
	n := 5000
	text := "# {[ in a comment\nmodel = \"a{[\\\"{\"\n" + "x = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n"
	var err error
	testutil.Within(t, time.Minute, "parsing 5000 nested tables", func() { _, err = Parse("n.toml", []byte(text)) })
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrSyntax) || e.Line != 3 || e.Column != 4+maxNesting*3+1 ||
		!strings.Contains(err.Error(), "nest more than 16 deep") {
		t.Fatalf("Parse = %v, want a syntax error at n.toml:3:%d: nest more than 16 deep", err, 4+maxNesting*3+1)
	}
	if len(err.Error()) > 300 {
		t.Errorf("the error is %d bytes", len(err.Error()))
	}
	// Brackets in strings (of any kind) and comments do not count.
	deepString := strings.Repeat("[{", 40)
	for _, s := range []string{`"` + deepString + `"`, `'` + deepString + `'`, `"""` + "\n" + deepString + `"""`, `'''` + deepString + `'''`} {
		if _, err := Parse("s.toml", []byte("# "+deepString+"\nmodel = "+s+"\n")); err != nil {
			t.Errorf("model = %s: %v", s, err)
		}
	}
}

// TestDottedKeysRefused: a key of many dotted parts nests tables as deep
// as braces do, at the same cost; a float, a date or a dotted string does
// not count.
func TestDottedKeysRefused(t *testing.T) {
	text := "model = \"m.smm\"\n" + strings.TrimSuffix(strings.Repeat("a.", 8000), ".") + " = 1\n"
	var err error
	testutil.Within(t, time.Minute, "parsing a key of 8000 dotted parts", func() { _, err = Parse("d.toml", []byte(text)) })
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || e.Column != 2*maxNesting+2 {
		t.Fatalf("Parse = %v, want a syntax error at d.toml:2:%d", err, 2*maxNesting+2)
	}
	ok := "model = \"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r\"\n[decision]\nthreshold = 0.5\n[spool]\ndir = \"/var/spool/setmatch\"\n"
	if _, err := Parse("ok.toml", []byte(ok)); err != nil {
		t.Errorf("dots in a string and a float: %v", err)
	}
}

// TestNestingLineAfterUnterminatedString: a string left open at the end of
// its line does not hide that line's end from the line count.
func TestNestingLineAfterUnterminatedString(t *testing.T) {
	text := "a = \"x\n\nb = " + strings.Repeat("[", maxNesting+1) + "\n"
	if line, _ := tooDeep(text); line != 3 {
		t.Errorf("tooDeep reports line %d, want 3", line)
	}
	// A line-ending backslash in a multi-line string: its newline counts.
	text = "a = \"\"\"x \\\n y\"\"\"\nb = " + strings.Repeat("[", maxNesting+1) + "\n"
	if line, _ := tooDeep(text); line != 3 {
		t.Errorf("after a line-ending backslash: tooDeep reports line %d, want 3", line)
	}
}

// TestUnknownTableReportedOnce: an unknown key holding nested tables is
// one error, at its outermost level; a key far longer than every known
// key gets no "did you mean", but the keys of its table, as a short one
// does.
func TestUnknownTableReportedOnce(t *testing.T) {
	text := "x = " + strings.Repeat("{a=", 12) + "1" + strings.Repeat("}", 12) + "\n[gpio]\npusle = \"1s\"\n"
	_, err := Parse("u.toml", []byte(text))
	if got := strings.Count(err.Error(), "unknown key"); got != 2 {
		t.Errorf("%d unknown keys reported, want 2 (x and gpio.pusle):\n%v", got, err)
	}
	checkErr(t, err, ErrUnknownKey, "u.toml:1:1: x: unknown key\n", "gpio.pusle: unknown key (did you mean gpio.pulse?)")
	long := strings.Repeat("pulse", 20)
	_, err = Parse("u.toml", []byte("[gpio]\n"+long+" = 1\n"))
	if err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "the keys of [gpio]: ") {
		t.Errorf("a 100-byte key: %v, want unknown with the keys of [gpio]", err)
	}
}

// TestConfigFileSizeLimit: a configuration over 1 MiB is refused, not
// read whole, whether a file or bytes; one of exactly 1 MiB is read.
func TestConfigFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	atLimit := "model = \"m.smm\"\n#" + strings.Repeat("x", MaxFileBytes-len("model = \"m.smm\"\n#")-1) + "\n"
	big := atLimit + "\n"
	check := func(what string, err error, name string) {
		t.Helper()
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "more than the limit of 1048576 bytes") || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s of 1 MiB + 1 byte: %v, want over the limit", what, err)
		}
	}
	p := write(t, dir, "big.toml", big)
	_, err := Load(p)
	check("Load", err, p)
	_, err = Parse("big.toml", []byte(big))
	check("Parse", err, "big.toml")

	p = write(t, dir, "limit.toml", atLimit)
	if _, err := Load(p); err != nil {
		t.Errorf("Load of 1 MiB: %v", err)
	}
	if _, err := Parse("limit.toml", []byte(atLimit)); err != nil {
		t.Errorf("Parse of 1 MiB: %v", err)
	}
}
