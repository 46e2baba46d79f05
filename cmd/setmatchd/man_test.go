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
