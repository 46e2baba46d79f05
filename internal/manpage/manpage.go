// Package manpage renders manual pages in roff (man(7)) from the flag sets
// a program parses, so that a manual lists the same flags, placeholders,
// descriptions and defaults as the program's -h, from one definition.
package manpage

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Page is one manual page.
type Page struct {
	Name    string // program name, e.g. "setmatch"
	Section int    // 1 user commands, 8 system administration
	Date    string // last change, YYYY-MM-DD; empty leaves the field out
	Source  string // program and version, e.g. "setmatch 0.1.0"
	Manual  string // manual title, e.g. "User Commands"
	Summary string // the NAME line after "name \-"

	// Synopsis holds one usage line per entry, without the program name.
	Synopsis []string
	// Description holds the paragraphs of DESCRIPTION.
	Description []string
	// Flags, if not nil, are listed under OPTIONS.
	Flags *flag.FlagSet
	// Commands, if any, are listed under COMMANDS with their flags.
	Commands []Command
	// Sections follow COMMANDS and OPTIONS in this order (FILES, EXIT
	// STATUS, SEE ALSO, ...).
	Sections []Section

	// DoubleDash writes flags as --name instead of -name (Go's flag
	// package accepts both).
	DoubleDash bool
}

// Command is a subcommand with its own flag set.
type Command struct {
	Name     string
	Summary  string        // one line
	Synopsis string        // arguments after "name command", e.g. "[--json] MODEL"
	Flags    *flag.FlagSet // nil or empty: the command has no flags
}

// Section is a titled list of paragraphs. A paragraph whose lines all start
// with a tab is set as a literal display.
type Section struct {
	Title      string
	Paragraphs []string
}

// Write renders p as roff to w.
func Write(w io.Writer, p Page) error {
	if p.Name == "" || p.Section == 0 || p.Summary == "" {
		return errors.New("manpage: a page needs a name, a section and a summary")
	}
	b := bufio.NewWriter(w)
	title := strings.ToUpper(p.Name)
	fmt.Fprintf(b, ".TH %s %d %s %s %s\n", quote(title), p.Section, quote(p.Date), quote(p.Source), quote(p.Manual))
	// No hyphenation and a ragged right edge: flags and paths stay whole.
	b.WriteString(".nh\n.ad l\n")
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(b, "%s \\- %s\n", escape(p.Name), escape(p.Summary))
	if len(p.Synopsis) > 0 {
		b.WriteString(".SH SYNOPSIS\n")
		for i, s := range p.Synopsis {
			if i > 0 {
				b.WriteString(".br\n")
			}
			fmt.Fprintf(b, ".B %s\n%s\n", escape(p.Name), escape(s))
		}
	}
	if len(p.Description) > 0 {
		writeSection(b, Section{Title: "DESCRIPTION", Paragraphs: p.Description})
	}
	if len(p.Commands) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, c := range p.Commands {
			fmt.Fprintf(b, ".SS %s\n", escape(c.Name))
			b.WriteString(".B " + escape(p.Name+" "+c.Name))
			if c.Synopsis != "" {
				b.WriteString("\n" + escape(c.Synopsis))
			}
			b.WriteString("\n.PP\n" + escape(c.Summary) + "\n")
			writeFlags(b, c.Flags, p.DoubleDash)
		}
	}
	if p.Flags != nil && hasFlags(p.Flags) {
		b.WriteString(".SH OPTIONS\n")
		writeFlags(b, p.Flags, p.DoubleDash)
	}
	for _, s := range p.Sections {
		writeSection(b, s)
	}
	return b.Flush()
}

func writeSection(b *bufio.Writer, s Section) {
	fmt.Fprintf(b, ".SH %s\n", quote(strings.ToUpper(s.Title)))
	for i, para := range s.Paragraphs {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		if literal(para) {
			b.WriteString(".RS 4\n.nf\n")
			for line := range strings.SplitSeq(para, "\n") {
				b.WriteString(escape(strings.TrimPrefix(line, "\t")) + "\n")
			}
			b.WriteString(".fi\n.RE\n")
			continue
		}
		b.WriteString(escape(para) + "\n")
	}
}

func literal(para string) bool {
	for line := range strings.SplitSeq(para, "\n") {
		if !strings.HasPrefix(line, "\t") {
			return false
		}
	}
	return true
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// writeFlags lists the flags of fs in name order as tagged paragraphs: the
// flag and its placeholder, then its usage and, as -h prints it, its
// default when that is not the zero value.
func writeFlags(b *bufio.Writer, fs *flag.FlagSet, doubleDash bool) {
	if fs == nil {
		return
	}
	dash := `\-`
	if doubleDash {
		dash = `\-\-`
	}
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		b.WriteString(".TP\n")
		if name == "" {
			fmt.Fprintf(b, "\\fB%s%s\\fR\n", dash, escape(f.Name))
		} else {
			fmt.Fprintf(b, "\\fB%s%s\\fR \\fI%s\\fR\n", dash, escape(f.Name), escape(name))
		}
		text := usage
		if !isZeroValue(f) {
			def := f.DefValue
			if isString(f) {
				def = strconv.Quote(def)
			}
			text += " (default " + def + ")"
		}
		b.WriteString(escape(text) + "\n")
	})
}

// isZeroValue reports whether f's default is the zero value of its type,
// which -h leaves out too.
func isZeroValue(f *flag.Flag) (zero bool) {
	defer func() {
		if recover() != nil {
			zero = false
		}
	}()
	typ := reflect.TypeOf(f.Value)
	var z reflect.Value
	if typ.Kind() == reflect.Pointer {
		z = reflect.New(typ.Elem())
	} else {
		z = reflect.Zero(typ)
	}
	v, ok := z.Interface().(flag.Value)
	if !ok {
		return false
	}
	return f.DefValue == v.String()
}

func isString(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, ok = g.Get().(string)
	return ok
}

// escape makes s safe as roff text: backslashes and hyphens are escaped,
// a line that would start with a control character is protected, and
// characters outside ASCII are written as groff's \[uXXXX] escapes.
func escape(s string) string {
	var b strings.Builder
	lineStart := true
	for _, r := range s {
		switch {
		case lineStart && (r == '.' || r == '\''):
			b.WriteString(`\&`)
			b.WriteRune(r)
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\t':
			b.WriteString("        ")
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
		lineStart = r == '\n'
	}
	return b.String()
}

// quote makes s one argument of a roff request.
func quote(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `""`) + `"`
}

// DateFromEpoch formats a SOURCE_DATE_EPOCH value (seconds since 1970, as
// reproducible builds set it) as the YYYY-MM-DD date of a page, in UTC;
// an empty value gives an empty date.
func DateFromEpoch(epoch string) (string, error) {
	if epoch == "" {
		return "", nil
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return "", fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since 1970 (e.g. git log -1 --format=%%ct)", epoch)
	}
	return time.Unix(sec, 0).UTC().Format(time.DateOnly), nil
}
