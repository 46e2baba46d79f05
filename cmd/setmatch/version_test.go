package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestVersion checks the three spellings and that -X main.version reaches
// the output and a model's tool field.
func TestVersion(t *testing.T) {
	old := version
	defer func() { version = old }()
	version = "1.2.3"
	want := "setmatch 1.2.3 " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(args, &stdout, &stderr); code != 0 || stdout.String() != want {
			t.Errorf("setmatch %v: exit %d, stdout %q, stderr %q; want 0, %q", args, code, stdout.String(), stderr.String(), want)
		}
	}
	if got := toolName("train"); got != "setmatch train 1.2.3" {
		t.Errorf("toolName(train) = %q, want %q", got, "setmatch train 1.2.3")
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"version", "extra"}, &stdout, &stderr); code != 2 {
		t.Errorf("setmatch version extra: exit %d, want 2 (usage error)", code)
	}
}

// TestManPageListsEveryFlag checks setmatch(1) against what each command's
// -h prints: every command, and every flag of it, must be in the page.
func TestManPageListsEveryFlag(t *testing.T) {
	var page, stderr bytes.Buffer
	if code := dispatch([]string{"man"}, &page, &stderr); code != 0 {
		t.Fatalf("setmatch man: exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(page.String(), `.TH "SETMATCH" 1 `) {
		t.Fatalf("setmatch man does not start with the .TH line:\n%.200s", page.String())
	}
	flagLine := regexp.MustCompile(`(?m)^  -(\S+)`)
	// The commands, and bench train, which bench dispatches.
	all := append(slices.Clip(commands), command{name: "bench train"})
	for _, c := range all {
		if !strings.Contains(page.String(), ".SS "+c.name+"\n") {
			t.Errorf("command %s has no subsection", c.name)
		}
		var help bytes.Buffer
		if code := dispatch(append(strings.Fields(c.name), "-h"), new(bytes.Buffer), &help); code != 0 {
			t.Errorf("setmatch %s -h: exit %d", c.name, code)
		}
		sub := section(page.String(), ".SS "+c.name+"\n")
		for _, m := range flagLine.FindAllStringSubmatch(help.String(), -1) {
			if !strings.Contains(sub, `\fB\-\-`+strings.ReplaceAll(m[1], "-", `\-`)+`\fR`) {
				t.Errorf("setmatch %s -h lists -%s, the man page's section does not", c.name, m[1])
			}
		}
	}
	if strings.Contains(page.String(), ".SS man\n") {
		t.Error("the hidden man command is listed")
	}
}

// TestSubcommandFlagErrorsNameItsHelp: a mistyped flag of bench train
// points to bench train -h, which lists its flags, not bench -h.
func TestSubcommandFlagErrorsNameItsHelp(t *testing.T) {
	code, _, errOut := runCmd("bench", "train", "--bogus")
	if code != 2 || !strings.Contains(errOut, "flag provided but not defined: -bogus (setmatch bench train -h lists the flags)") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// section returns the text from start to the next subsection.
func section(page, start string) string {
	i := strings.Index(page, start)
	if i < 0 {
		return ""
	}
	rest := page[i+len(start):]
	if j := strings.Index(rest, "\n.S"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestFlagErrorSaidOnce: in every command and subcommand a mistyped flag
// is said once, with where to find the flags, not followed by the whole
// usage; -h prints the usage and exits 0.
func TestFlagErrorSaidOnce(t *testing.T) {
	var names [][]string
	for _, c := range commands {
		names = append(names, []string{c.name})
		for _, sc := range subcommands[c.name] {
			names = append(names, strings.Fields(sc.name))
		}
	}
	for _, name := range names {
		cmd := "setmatch " + strings.Join(name, " ")
		var stdout, stderr bytes.Buffer
		if code := dispatch(append(name, "--bogus"), &stdout, &stderr); code != 2 ||
			strings.Count(stderr.String(), "flag provided but not defined: -bogus") != 1 ||
			!strings.Contains(stderr.String(), cmd+" -h lists the flags") || strings.Contains(stderr.String(), "usage:") {
			t.Errorf("%s --bogus: exit %d, stderr:\n%s", cmd, code, stderr.String())
		}
		stderr.Reset()
		if code := dispatch(append(name, "-h"), &stdout, &stderr); code != 0 || !strings.HasPrefix(stderr.String(), "usage: "+cmd) {
			t.Errorf("%s -h: exit %d, stderr:\n%.200s", cmd, code, stderr.String())
		}
	}
}

// TestMaxBytesPositive: --max-bytes is a size > 0; anything else is a
// usage error that says so, in every command that takes the flag, naming
// the flag and the value once: the flag package already says 'invalid
// value "0" for flag -max-bytes' before the reason.
func TestMaxBytesPositive(t *testing.T) {
	for _, cmd := range [][]string{
		{"div"}, {"test", "--model", "m.smm", "--data", "d"}, {"train", "--data", "d", "--out", "m.smm"},
		{"enroll", "--model", "m.smm", "--out", "e.smm", "--label", "new"}, {"forget", "--model", "m.smm", "--out", "f.smm", "--label", "c00"},
	} {
		for _, c := range []struct{ value, want string }{
			{"-1", `invalid value "-1" for flag -max-bytes: must be > 0 (a size in bytes)`},
			{"0", `invalid value "0" for flag -max-bytes: must be > 0 (a size in bytes)`},
			{"x", `invalid value "x" for flag -max-bytes: not a whole number of bytes`},
			{"1e99", `invalid value "1e99" for flag -max-bytes: not a whole number of bytes`},
			{"99999999999999999999", `invalid value "99999999999999999999" for flag -max-bytes: out of range: a size in bytes is at most 9223372036854775807`},
			{"-99999999999999999999", `invalid value "-99999999999999999999" for flag -max-bytes: must be > 0 (a size in bytes)`},
		} {
			args := append(append([]string{cmd[0], "--max-bytes", c.value}, cmd[1:]...), "a.npy", "b.npy")
			var stdout, stderr bytes.Buffer
			code := dispatch(args, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", args, code, stderr.String(), c.want)
			}
			if strings.Count(stderr.String(), `"`+c.value+`"`) != 1 || strings.Count(stderr.String(), "max-bytes") != 1 {
				t.Errorf("%v: %q names the flag or the value more than once", args, stderr.String())
			}
		}
	}
}

// TestDispatchExitCodes: the exit status a script relies on when no
// command runs: 2 for no command or an unknown one (with the usage on
// stderr), 0 for asking for help (the usage on stderr, nothing on stdout).
func TestDispatchExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string // on stderr
	}{
		{nil, 2, "usage: setmatch <command>"},
		{[]string{"trian"}, 2, `setmatch: unknown command "trian"`},
		{[]string{"--bogus"}, 2, `setmatch: unknown command "--bogus"`},
		{[]string{"help"}, 0, "usage: setmatch <command>"},
		{[]string{"-h"}, 0, "usage: setmatch <command>"},
		{[]string{"--help"}, 0, "usage: setmatch <command>"},
		// help CMD is CMD -h; an unknown CMD is unknown either way.
		{[]string{"help", "train"}, 0, "usage: setmatch train --data DIR"},
		{[]string{"help", "trian"}, 2, `setmatch: unknown command "trian"`},
		{[]string{"div", "a.npy"}, 2, "setmatch div: want two set files (.npy or .csv), got one: a.npy"},
		// A subcommand's error names it.
		{[]string{"bench", "train", "--sizes", "foo"}, 2, `setmatch bench train: --sizes: size "foo"`},
		{[]string{"bench", "--mode", "tran"}, 2, "setmatch bench: "},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("setmatch %q: exit %d, stdout %q, stderr:\n%s\nwant exit %d, nothing on stdout, stderr with %q", c.args, code, stdout.String(), stderr.String(), c.code, c.want)
		}
	}
}

// TestMistypedFlagSuggestsOne: a flag written with a letter left out
// (--featues for --features), in any command that has flags, is a usage
// error (exit 2) that says which flag it meant, with the dashes the
// command line wrote, as a mistyped configuration key does; a flag far
// from every one gets no suggestion.
func TestMistypedFlagSuggestsOne(t *testing.T) {
	type cmd struct {
		args []string // the command's words
		run  func([]string, io.Writer, io.Writer) error
	}
	var cmds []cmd
	for _, c := range commands {
		cmds = append(cmds, cmd{[]string{c.name}, c.run})
		for _, s := range subcommands[c.name] {
			cmds = append(cmds, cmd{strings.Fields(s.name), s.run})
		}
	}
	for _, c := range cmds {
		capture := &flagCapture{}
		if err := c.run([]string{"-h"}, io.Discard, capture); !errors.Is(err, flag.ErrHelp) || capture.fs == nil {
			t.Fatalf("setmatch %s -h: %v, no flag set", strings.Join(c.args, " "), err)
		}
		var name string
		n := 0
		capture.fs.VisitAll(func(f *flag.Flag) {
			if n++; name == "" && len(f.Name) >= 4 {
				name = f.Name
			}
		})
		if n == 0 {
			continue // version
		}
		if name == "" {
			t.Fatalf("setmatch %s: no flag of 4 letters or more to mistype", strings.Join(c.args, " "))
		}
		typo := name[:2] + name[3:] // a letter left out
		if capture.fs.Lookup(typo) != nil {
			t.Fatalf("setmatch %s: %s is a flag", strings.Join(c.args, " "), typo)
		}
		for _, dashes := range []string{"--", "-"} {
			code, _, errOut := runCmd(append(slices.Clone(c.args), dashes+typo, "x")...)
			want := fmt.Sprintf("flag provided but not defined: -%s (did you mean %s%s?", typo, dashes, name)
			if code != 2 || !strings.Contains(errOut, want) {
				t.Errorf("setmatch %s %s%s: exit %d, stderr:\n%s\nwant exit 2 and %q", strings.Join(c.args, " "), dashes, typo, code, errOut, want)
			}
		}
	}
	code, _, errOut := runCmd("train", "--zzzzzzzz")
	if code != 2 || strings.Contains(errOut, "did you mean") {
		t.Errorf("setmatch train --zzzzzzzz: exit %d, stderr %q: want exit 2 and no suggestion", code, errOut)
	}
}

// TestManTakesNoArguments checks that setmatch man -h prints how to use it
// instead of the page, and that other arguments are a usage error.
func TestManTakesNoArguments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"man", "-h"}, &stdout, &stderr); code != 0 || stdout.Len() != 0 ||
		!strings.Contains(stderr.String(), "usage: setmatch man > setmatch.1") {
		t.Errorf("setmatch man -h: exit %d, stdout %.40q, stderr %q; want 0, nothing, the usage", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := dispatch([]string{"man", "setmatchd"}, &stdout, &stderr); code != 2 || stdout.Len() != 0 ||
		!strings.Contains(stderr.String(), `"setmatchd"`) {
		t.Errorf("setmatch man setmatchd: exit %d, stdout %.40q, stderr %q; want 2, nothing, the argument named", code, stdout.String(), stderr.String())
	}
}
