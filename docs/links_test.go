package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The pages whose links are checked: the README and every page of docs/.
func pages(t *testing.T) []string {
	t.Helper()
	mds, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, mds...)
}

var (
	// [text](target): the target up to the closing parenthesis, without
	// spaces (no title); images too.
	linkRE = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	// <a id="x"> and <a name="x">: anchors of their own.
	idRE = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
)

// slug is the anchor GitHub gives a heading: lower case, every character
// that is neither a letter, a digit, a space, a hyphen nor an underscore
// dropped (markup included), spaces made hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdLine is a line of a page outside fenced and indented code blocks.
type mdLine struct {
	n       int
	text    string // inline code removed, for links
	heading string // the heading's text, "" if the line is none
}

// readPage returns the lines of a page outside code blocks; a heading
// keeps its code spans' text, as GitHub's anchors do.
func readPage(t *testing.T, name string) []mdLine {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []mdLine
	fenced, prevBlank := false, true
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			prevBlank = false
			continue
		}
		indented := strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")
		if fenced || (indented && prevBlank) {
			// An indented block runs on while its lines stay indented.
			if !fenced && indented {
				prevBlank = true
			}
			continue
		}
		prevBlank = trimmed == ""
		l := mdLine{n: i + 1, text: stripCode(line)}
		if strings.HasPrefix(line, "#") {
			h := strings.TrimLeft(line, "#")
			if strings.HasPrefix(h, " ") {
				l.heading = strings.TrimSpace(h)
			}
		}
		out = append(out, l)
	}
	return out
}

// stripCode removes `inline code` from a line.
func stripCode(line string) string {
	parts := strings.Split(line, "`")
	var b strings.Builder
	for i := 0; i < len(parts); i += 2 {
		b.WriteString(parts[i])
	}
	return b.String()
}

// anchors returns the anchors of a page: its headings' slugs (a repeated
// one numbered -1, -2, … as GitHub numbers it) and its <a id> anchors.
func anchors(t *testing.T, name string) map[string]bool {
	t.Helper()
	set := map[string]bool{}
	seen := map[string]int{}
	for _, l := range readPage(t, name) {
		if l.heading != "" {
			s := slug(l.heading)
			if k := seen[s]; k > 0 {
				set[s+"-"+strconv.Itoa(k)] = true
			} else {
				set[s] = true
			}
			seen[s]++
		}
		for _, m := range idRE.FindAllStringSubmatch(l.text, -1) {
			set[m[1]] = true
		}
	}
	return set
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Frame features (`--features`)":                      "frame-features---features",
		"Summary: does the paper's ordering hold?":           "summary-does-the-papers-ordering-hold",
		"A household: 4 or 5 people known":                   "a-household-4-or-5-people-known",
		"Stand-in strangers (`auto:balanced`, `auto:far=P`)": "stand-in-strangers-autobalanced-autofarp",
		"Choosing the method (`auto`)":                       "choosing-the-method-auto",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLinks checks that every relative link of the README and of docs/
// names a file of the repository, and that its #anchor, if any, is a
// heading or an <a id> of that page, as GitHub renders them.
func TestLinks(t *testing.T) {
	cache := map[string]map[string]bool{}
	for _, page := range pages(t) {
		for _, l := range readPage(t, page) {
			for _, m := range linkRE.FindAllStringSubmatch(l.text, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: link %s: no file %s", page, l.n, target, path)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(path, ".md") {
					t.Errorf("%s:%d: link %s: an anchor in a file that is not a page", page, l.n, target)
					continue
				}
				set, ok := cache[path]
				if !ok {
					set = anchors(t, path)
					cache[path] = set
				}
				if !set[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading or <a id> %q", page, l.n, target, path, anchor)
				}
			}
		}
	}
}
