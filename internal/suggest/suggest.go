// Package suggest finds the name a mistyped one meant: a configuration
// key or a command-line flag, for a "did you mean" beside the error; and
// parses a command line's flags, saying nothing of an error but the flag
// a mistyped one meant, for the program to say it in its own words.
package suggest

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// maxEdits is how far from the mistyped name a name may be to be
// suggested: two edits (a letter left out, added, changed, or two
// letters swapped).
const maxEdits = 2

// Closest returns the one of names nearest to s by edit distance (a byte
// inserted, deleted or replaced counts one), if it is at most two edits
// away; of several as near, the first in names. It returns "" where none
// is that near. A name whose length differs from s's by more than two
// edits is not compared, so that a long s costs no more than the names.
func Closest(s string, names []string) string {
	best, bestD := "", maxEdits+1
	for _, c := range names {
		if abs(len(c)-len(s)) > maxEdits {
			continue
		}
		if d := distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// distance is the edit distance of a and b (Levenshtein, in bytes).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// undefined is how the flag package begins its error of a flag fs does
// not define, before the name.
const undefined = "flag provided but not defined: -"

// flagMeant returns the flag of fs that the undefined flag of err, an error of
// fs.Parse(args), meant, written with as many dashes as args wrote the
// mistyped one ("--features" for --featues, "-config" for -confg); ""
// where err is of another kind or no flag of fs is near.
func flagMeant(fs *flag.FlagSet, args []string, err error) string {
	if err == nil {
		return ""
	}
	name, ok := strings.CutPrefix(err.Error(), undefined)
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	s := Closest(strings.ToLower(name), names)
	if s == "" {
		return ""
	}
	dashes := "-"
	for _, a := range args {
		if a == "--" {
			break // the flags end
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		d, rest := "-", a[1:]
		if strings.HasPrefix(rest, "-") {
			d, rest = "--", rest[1:]
		}
		if n, _, _ := strings.Cut(rest, "="); n == name {
			dashes = d
			break
		}
	}
	return dashes + s
}

// Parse parses args with fs, the flag package printing nothing of an
// error and fs's Usage and output left as they were. Of -h or -help it
// prints fs's usage (its flags' defaults, PrintDefaults, where fs has no
// Usage) and returns flag.ErrHelp; of a malformed command line it returns the
// flag package's error, for the caller to say, and the flag a mistyped
// one meant (flagMeant), "" where none.
func Parse(fs *flag.FlagSet, args []string) (meant string, err error) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err = fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		if usage == nil {
			usage = fs.PrintDefaults
		}
		usage()
	}
	return flagMeant(fs, args, err), err
}
