package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestManPageListsEveryFlag checks setmatchd(8) against what -h prints.
func TestManPageListsEveryFlag(t *testing.T) {
	var page, stderr bytes.Buffer
	if code := run([]string{"-manpage"}, &page, &stderr); code != 0 {
		t.Fatalf("setmatchd -manpage: exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(page.String(), `.TH "SETMATCHD" 8 `) {
		t.Fatalf("setmatchd -manpage does not start with the .TH line:\n%.200s", page.String())
	}
	var help bytes.Buffer
	if code := run([]string{"-h"}, new(bytes.Buffer), &help); code != 2 && code != 0 {
		t.Fatalf("setmatchd -h: exit %d", code)
	}
	flags := regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(help.String(), -1)
	if len(flags) == 0 {
		t.Fatalf("setmatchd -h lists no flags:\n%s", help.String())
	}
	for _, m := range flags {
		if !strings.Contains(page.String(), `\fB\-`+strings.ReplaceAll(m[1], "-", `\-`)+`\fR`) {
			t.Errorf("setmatchd -h lists -%s, the man page does not", m[1])
		}
	}
	if strings.Contains(help.String(), "manpage") {
		t.Error("-h shows the hidden -manpage")
	}
}

// TestHelpExitsZero: -h prints the usage and exits 0, as setmatch's; a
// mistyped flag is a usage error (2).
func TestHelpExitsZero(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-h"}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stderr.String(), "usage: setmatchd") {
		t.Errorf("setmatchd -h: exit %d, stderr %q", code, stderr.String())
	}
	if code := run([]string{"-bogus"}, &stdout, &stderr); code != 2 {
		t.Errorf("setmatchd -bogus: exit %d, want 2", code)
	}
}

// TestMistypedFlagSuggestsOne: a mistyped flag is a usage error (exit 2)
// that says the flag it meant, with the dashes the command line wrote, as
// setmatch's do, followed by the usage as any flag error is; a flag far
// from every one, or a bad value, is said as the flag package says it.
func TestMistypedFlagSuggestsOne(t *testing.T) {
	var usage bytes.Buffer
	if code := run([]string{"-h"}, new(bytes.Buffer), &usage); code != 0 {
		t.Fatalf("setmatchd -h: exit %d", code)
	}
	for _, c := range []struct {
		args []string
		want string // the first line
	}{
		{[]string{"-confg", "x.toml"}, "flag provided but not defined: -confg (did you mean -config?)"},
		{[]string{"--relod", "1"}, "flag provided but not defined: -relod (did you mean --reload?)"},
		{[]string{"-Check"}, "flag provided but not defined: -Check (did you mean -check?)"},
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"-reload", "x"}, `invalid value "x" for flag -reload: parse error`},
	} {
		var stderr bytes.Buffer
		code := run(c.args, new(bytes.Buffer), &stderr)
		if want := c.want + "\n" + usage.String(); code != 2 || stderr.String() != want {
			t.Errorf("setmatchd %q: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", c.args, code, stderr.String(), want)
		}
	}
}
