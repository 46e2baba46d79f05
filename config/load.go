package config

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"setmatch/internal/regfile"
	"setmatch/internal/suggest"
)

// Errors wrapped by the *Error values Load returns, for errors.Is.
var (
	ErrSyntax     = errors.New("syntax error")
	ErrUnknownKey = errors.New("unknown key")
	ErrType       = errors.New("wrong type")
	ErrInvalid    = errors.New("invalid value")
)

// Error is one problem in a configuration file. Load returns one *Error
// for a syntax error; otherwise every unknown key and wrong type of a file,
// or every invalid value, each an *Error, joined with errors.Join.
type Error struct {
	File   string // file that holds the problem; "" for a default value
	Line   int    // 1-based line, 0 if unknown
	Column int    // 1-based column, 0 if unknown
	Key    string // key path such as "gpio.pulse", "" if none
	Err    error  // what is wrong; wraps ErrSyntax, ErrUnknownKey, ErrType or ErrInvalid
}

// Error returns "file:line:column: key: what is wrong".
func (e *Error) Error() string {
	var b strings.Builder
	if p := e.place(); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// place returns "file:line:column" (as much of it as is known), "" for a
// default value.
func (e *Error) place() string {
	if e.File == "" {
		return ""
	}
	p := e.File
	if e.Line > 0 {
		p += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			p += fmt.Sprintf(":%d", e.Column)
		}
	}
	return p
}

// Load reads the main configuration file at path, then the drop-in files
// <dir of path>/conf.d/*.toml in lexical order, over Default, and validates
// the result. A missing conf.d is not an error.
func Load(path string) (*Config, error) {
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	return LoadFiles(files[0], files[1:]...)
}

// Files returns the files Load reads for the main configuration file at
// path: path, then its drop-ins in the order they are read.
//
// The folder is listed, not globbed: a glob skipped the drop-ins without
// a word where conf.d could not be read (its user lacking the right) and
// where the configuration's path holds a glob's special characters
// ("/srv/door[1]/setmatchd.toml").
func Files(path string) ([]string, error) {
	dir := filepath.Join(filepath.Dir(path), "conf.d")
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return []string{path}, nil
	case err != nil:
		return nil, fmt.Errorf("the drop-ins of %s: %w: setmatchd reads every conf.d/*.toml beside it; let its user read the folder, or remove it", path, err)
	}
	files := []string{path}
	for _, e := range entries { // sorted by name
		// Skip hidden files (editor locks, package manager leftovers).
		if n := e.Name(); strings.HasSuffix(n, ".toml") && !strings.HasPrefix(n, ".") {
			files = append(files, filepath.Join(dir, n))
		}
	}
	return files, nil
}

// LoadFiles reads the main file and then each drop-in, in the order given,
// over Default, and validates the result.
func LoadFiles(main string, dropins ...string) (*Config, error) {
	l := newLoader()
	for _, name := range append([]string{main}, dropins...) {
		f, _, err := regfile.Open(name)
		switch {
		case err != nil && name != main:
			return nil, fmt.Errorf("%w (a drop-in: every conf.d/*.toml beside %s is read; repair it or remove it)", err, filepath.Base(main))
		case err != nil && errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%w: give setmatchd its configuration file with -config FILE (the package installs /etc/setmatch/setmatchd.toml)", err)
		case err != nil:
			return nil, err
		}
		err = l.apply(name, f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if err := l.validate(); err != nil {
		return nil, err
	}
	return l.result(), nil
}

// result returns the configuration the files made, with where they set
// each key (Config.KeyError); none where they set none, as Default has.
func (l *loader) result() *Config {
	if len(l.source) > 0 {
		l.cfg.sources = l.source
	}
	return &l.cfg
}

// loader applies files one after the other and remembers which file set
// each key, to name it in validation errors.
type loader struct {
	cfg    Config
	source map[string]source // key path -> where it was last set
}

type source struct {
	file string
	pos  map[string]position // where the file sets each key
}

// locateIn fills in the file, line and column where sources says e.Key
// was last set, if a file set it.
func locateIn(sources map[string]source, e *Error) {
	if s, ok := sources[e.Key]; ok {
		e.File = s.file
		locate(e, s.pos)
	}
}

func newLoader() *loader {
	return &loader{cfg: Default(), source: make(map[string]source)}
}

// pathKeys are the keys holding paths, resolved against the directory of
// the file that sets them.
var pathKeys = []struct {
	key []string
	get func(*Config) *string
}{
	{[]string{"model"}, func(c *Config) *string { return &c.Model }},
	{[]string{"spool", "dir"}, func(c *Config) *string { return &c.Spool.Dir }},
	{[]string{"journal", "path"}, func(c *Config) *string { return &c.Journal.Path }},
	{[]string{"mqtt", "password_file"}, func(c *Config) *string { return &c.MQTT.PasswordFile }},
	{[]string{"mqtt", "ca_file"}, func(c *Config) *string { return &c.MQTT.CAFile }},
	{[]string{"mqtt", "cert_file"}, func(c *Config) *string { return &c.MQTT.CertFile }},
	{[]string{"mqtt", "key_file"}, func(c *Config) *string { return &c.MQTT.KeyFile }},
}

// apply reads the file called name from r and applies it over what the
// loader holds. A file of more than MaxFileBytes is refused, read no
// further than the byte past the limit: the one check of the size, for
// files and bytes alike.
func (l *loader) apply(name string, r io.Reader) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return err
	}
	if len(data) > MaxFileBytes {
		return &Error{File: name, Err: fmt.Errorf("%w: the file is more than the limit of %d bytes (a configuration is a few KiB of TOML): give setmatchd its configuration here (-config FILE, drop-ins in conf.d/*.toml), not another file", ErrSyntax, MaxFileBytes)}
	}
	text := string(data)
	if e := notText(name, text); e != nil {
		return e
	}
	if line, col := tooDeep(text); line > 0 {
		return &Error{File: name, Line: line, Column: col, Err: fmt.Errorf("%w: arrays, inline tables or the parts of a dotted key nest more than %d deep here (setmatchd's keys nest 3 deep at most)", ErrSyntax, maxNesting)}
	}
	// Parse alone first: any error here is in the syntax.
	md, err := toml.Decode(text, new(map[string]any))
	if err != nil {
		e := &Error{File: name, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e.Line, e.Column = pe.Position.Line, pe.Position.Col
			e.Err = fmt.Errorf("%w: %s", ErrSyntax, pe.Message)
			if m := definedTwiceRE.FindStringSubmatch(pe.Message); m != nil {
				// The decoder gives the end of the value; give the start
				// of the line that sets it again, and what to do.
				e.Column = firstColumn(lineOf(text, e.Line))
				e.Err = fmt.Errorf("%w: %s is set a second time in this file: a file sets a key or a [table] once (a later drop-in may set it again); remove one, or join the two", ErrSyntax, m[1])
			} else if h := quoteHint(lineOf(text, e.Line)); h != "" {
				e.Err = fmt.Errorf("%w: %s: %s", ErrSyntax, pe.Message, h)
			}
		}
		return e
	}
	pos := keyPositions(text)
	// Check the keys before decoding, so that a misspelt key is reported
	// as such rather than as a type error of a key it resembles.
	// An unknown key is reported once: the first key under its outermost
	// unknown part (x of x = {a = {a = …}}), not every key nested in it.
	var errs []error
	reported := map[string]bool{}
	for _, k := range md.Keys() {
		if knownKey(k) {
			continue
		}
		i := 1
		for knownKey(k[:i]) {
			i++ // ends by len(k), or by 4: no key nests deeper than 3
		}
		if i > 1 && !tableKey(k[:i-1]) {
			continue // a table where a value goes (pulse = {…}): decodeEach says so
		}
		if p := keyPath(k[:i]); !reported[p] {
			reported[p] = true
			errs = append(errs, unknown(name, pos, k))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	cfg := l.cfg
	// Maps are shared with the previous state: copy so that a failed
	// decode leaves l.cfg as it was.
	if cfg.GPIO.LabelPins != nil {
		cfg.GPIO.LabelPins = maps.Clone(cfg.GPIO.LabelPins)
	}
	md, errs = decodeEach(name, text, pos, &cfg)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	abs, _ := filepath.Abs(name)
	for _, p := range pathKeys {
		if v := p.get(&cfg); md.IsDefined(p.key...) && strings.TrimSpace(*v) != "" && !filepath.IsAbs(*v) {
			*v = filepath.Join(filepath.Dir(abs), *v)
		}
	}
	for _, k := range md.Keys() {
		l.source[keyPath(k)] = source{file: name, pos: pos}
	}
	cfg.Files = append(slices.Clip(cfg.Files), name)
	l.cfg = cfg
	return nil
}

// notText returns the error of the first byte of text that is not UTF-8,
// or a control character TOML allows nowhere (all but tab, line feed and
// a carriage return before a line feed, in strings and comments too), at
// its line and column (in characters, as every place is given); nil if
// there is none. The
// decoder finds them too, but gives the start of the string or line, or
// a column off by one, and does not say what to do.
func notText(name, text string) *Error {
	line, col := 1, 1
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			hint := "save it as UTF-8 (from Latin-1: iconv -f latin1 -t utf-8)"
			if strings.HasPrefix(text, "\xff\xfe") || strings.HasPrefix(text, "\xfe\xff") || strings.Contains(text, "\x00") {
				hint = "it looks like UTF-16: save it as UTF-8 (iconv -f utf-16 -t utf-8)"
			}
			return &Error{File: name, Line: line, Column: col, Err: fmt.Errorf("%w: byte 0x%02x is not UTF-8 text; a TOML file is UTF-8: %s", ErrSyntax, text[i], hint)}
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f:
			hint := fmt.Sprintf(`remove it, or write it as the escape "\u%04X" in a quoted string`, r)
			if r == 0 {
				hint = "a TOML file is UTF-8 text: save it as UTF-8 (a file saved as UTF-16 holds NUL bytes: iconv -f utf-16 -t utf-8)"
			}
			return &Error{File: name, Line: line, Column: col, Err: fmt.Errorf("%w: control character U+%04X is not allowed in TOML: %s", ErrSyntax, r, hint)}
		case r == '\r' && !strings.HasPrefix(text[i+1:], "\n"):
			// The decoder calls it a control character, and the text after
			// it part of the same line: a comment's, or a key to quote.
			return &Error{File: name, Line: line, Column: col, Err: fmt.Errorf("%w: a carriage return (U+000D) without a line feed after it is not allowed in TOML, whose lines end in LF or CRLF: save the file with LF line ends (one whose lines end in CR alone, as classic Mac programs write: tr '\\r' '\\n' < old.toml > new.toml)", ErrSyntax)}
		case r == '\n':
			line, col = line+1, 0
		}
		i += n
		col++
	}
	return nil
}

// definedTwiceRE matches the decoder's message for a key or table a file
// sets twice.
var definedTwiceRE = regexp.MustCompile(`^Key '(.*)' has already been defined\.?$`)

// lineOf returns line number line (1-based) of text, "" if there is none.
func lineOf(text string, line int) string {
	lines := strings.Split(text, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	return strings.TrimSuffix(lines[line-1], "\r")
}

// quoteHint says what to do about a syntax error on line, a key = value
// line, where the key or the value lacks the quotes it needs: a key of
// other characters than a bare key's (a label with accents or spaces), or
// a value that is text (backend = log, pulse = 500ms, dir = /srv/spool);
// "" for any other line.
func quoteHint(line string) string {
	key, value, ok := strings.Cut(line, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.ContainsAny(key, "\"'[.") {
		return ""
	}
	value = strings.TrimSpace(value)
	if i := strings.IndexByte(value, '#'); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	for _, c := range key {
		if !bare(c) {
			return fmt.Sprintf("a key of other characters than A-Z a-z 0-9 _ - goes in quotes (%q = %s)", key, value)
		}
	}
	if wordless[key] {
		return "" // quotes would make it text, which the key does not take
	}
	first, _ := utf8.DecodeRuneInString(value)
	text := unicode.IsLetter(first) || strings.ContainsRune("/.~", first) ||
		unicode.IsDigit(first) && strings.IndexFunc(value, unicode.IsLetter) >= 0
	if !text {
		return ""
	}
	return fmt.Sprintf("text goes in quotes (%s = %q)", key, value)
}

// firstColumn returns the column (in characters) of the first character
// of line that is not a space or a tab.
func firstColumn(line string) int {
	return utf8.RuneCountInString(line[:len(line)-len(strings.TrimLeft(line, " \t"))]) + 1
}

func unknown(name string, pos map[string]position, k toml.Key) error {
	msg := ErrUnknownKey
	if len(k) > 4 {
		// Far from any known key.
	} else if s := closestKey(k); s != "" {
		msg = fmt.Errorf("%w (did you mean %s?)", ErrUnknownKey, s)
	} else if s := elsewhere(k); s != "" {
		where := "a key of [" + s[:max(strings.LastIndex(s, "."), 0)] + "]"
		if !strings.Contains(s, ".") {
			where = "a key of no table: it goes before the first [table] of a file"
		}
		msg = fmt.Errorf("%w (did you mean %s? %s is %s)", ErrUnknownKey, s, s[strings.LastIndex(s, ".")+1:], where)
	} else if keys := tableKeysOf(k[:len(k)-1]); len(keys) > 0 {
		msg = fmt.Errorf("%w (the keys of [%s]: %s)", ErrUnknownKey, strings.Join(k[:len(k)-1], "."), strings.Join(keys, ", "))
	}
	return locate(&Error{File: name, Key: keyPath(k), Err: msg}, pos)
}

// tableKeysOf returns the names of the keys of the known table t, sorted;
// none for the top level or a table that is not known.
func tableKeysOf(t toml.Key) []string {
	if len(t) == 0 || !tableKey(t) {
		return nil
	}
	prefix := strings.Join(t, ".") + "."
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(knownKeys)) {
		if name, ok := strings.CutPrefix(k, prefix); ok && !strings.Contains(name, ".") {
			keys = append(keys, name)
		}
	}
	return keys
}

// locate sets e's line and column to where pos says its key is set, if it
// knows.
func locate(e *Error, pos map[string]position) *Error {
	if p, ok := pos[e.Key]; ok {
		e.Line, e.Column = p.line, p.column
		return e
	}
	// A table implied by dotted keys (pulse.x = 1) has no place of its
	// own: take the first key under it.
	for k, p := range pos {
		if strings.HasPrefix(k, e.Key+".") && (e.Line == 0 || p.line < e.Line || p.line == e.Line && p.column < e.Column) {
			e.Line, e.Column = p.line, p.column
		}
	}
	return e
}

// decodeEach decodes text into cfg one key at a time, so that every value
// of the wrong type is reported, not only the first the decoder meets.
// Tables are walked along the fields of Config; the keys were checked to
// be known before.
func decodeEach(name, text string, pos map[string]position, cfg *Config) (toml.MetaData, []error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(text, &top)
	if err != nil {
		return md, []error{decodeError(name, err)}
	}
	var errs []error
	var walk func(prims map[string]toml.Primitive, rv reflect.Value, path toml.Key)
	walk = func(prims map[string]toml.Primitive, rv reflect.Value, path toml.Key) {
		for _, k := range slices.Sorted(maps.Keys(prims)) {
			key := append(slices.Clip(path), k)
			fail := func(err error) {
				e := decodeError(name, err)
				if ce, ok := e.(*Error); ok {
					if ce.Key == "" {
						ce.Key = keyPath(key)
					}
					e = locate(ce, pos)
				}
				errs = append(errs, e)
			}
			var field reflect.Value
			switch rv.Kind() {
			case reflect.Struct:
				field = fieldByTag(rv, k)
			case reflect.Map:
				// A table of strings (gpio.label_pins): decode the entry,
				// then store it.
				v := reflect.New(rv.Type().Elem())
				if e := wrongType(name, md, key, v.Elem().Type()); e != nil {
					errs = append(errs, locate(e, pos))
					continue
				}
				if err := md.PrimitiveDecode(prims[k], v.Interface()); err != nil {
					fail(err)
					continue
				}
				if rv.IsNil() {
					rv.Set(reflect.MakeMap(rv.Type()))
				}
				rv.SetMapIndex(reflect.ValueOf(k), v.Elem())
				continue
			}
			if !field.IsValid() {
				continue // unknown keys were reported before
			}
			if isTable(field.Type()) {
				// The decoder ignores a value that is not a table where a
				// map is wanted; say so.
				if t := md.Type(key...); t != "Hash" && t != "" { // "": implied by [a.b]
					errs = append(errs, locate(&Error{File: name, Key: keyPath(key),
						Err: fmt.Errorf("%w: want a table, got %s", ErrType, tomlTypeName(t))}, pos))
					continue
				}
				var sub map[string]toml.Primitive
				if err := md.PrimitiveDecode(prims[k], &sub); err != nil {
					fail(err)
					continue
				}
				walk(sub, field, key)
				continue
			}
			if e := wrongType(name, md, key, field.Type()); e != nil {
				errs = append(errs, locate(e, pos))
				continue
			}
			// Decode into a fresh value, so that a failure leaves the
			// field as it was.
			v := reflect.New(field.Type())
			v.Elem().Set(field)
			if err := md.PrimitiveDecode(prims[k], v.Interface()); err != nil {
				fail(err)
				continue
			}
			field.Set(v.Elem())
		}
	}
	walk(top, reflect.ValueOf(cfg).Elem(), nil)
	// In file order (the walk goes through the keys sorted by name).
	slices.SortStableFunc(errs, func(a, b error) int {
		var ea, eb *Error
		errors.As(a, &ea)
		errors.As(b, &eb)
		if ea == nil || eb == nil {
			return 0
		}
		return cmp.Or(cmp.Compare(ea.Line, eb.Line), cmp.Compare(ea.Column, eb.Column))
	})
	return md, errs
}

// wrongType returns the error of a value at key whose TOML type a field
// of type t does not take (valueKind), or nil.
func wrongType(name string, md toml.MetaData, key toml.Key, t reflect.Type) *Error {
	want, takes := valueKind(t)
	if takes == nil {
		return nil
	}
	got := md.Type(key...)
	if got == "" {
		got = "Hash" // a table implied by a dotted key (pulse.x = 1)
	}
	if slices.Contains(takes, got) {
		return nil
	}
	return &Error{File: name, Key: keyPath(key), Err: fmt.Errorf("%w: want %s, got %s", ErrType, want, tomlTypeName(got))}
}

// tomlTypeName names a type as MetaData.Type writes it, in TOML terms.
func tomlTypeName(t string) string {
	switch t {
	case "Integer":
		return "an integer"
	case "Float":
		return "a float"
	case "String":
		return "a string"
	case "Bool":
		return "a boolean"
	case "Array":
		return "an array"
	case "Hash":
		return "a table"
	case "ArrayHash":
		return "an array of tables"
	case "Datetime":
		return "a date-time"
	}
	return strings.ToLower(t)
}

// valueKind is what a key of a field of type t takes: want, in TOML
// terms, where the decoder would name Go's types ("got []any") or pass
// the value as text to a duration ("got \"true\""), and takes, the types
// MetaData.Type names that it takes; takes is nil for a type not checked.
// A duration or a size also takes a number, which its own reader refuses
// with an example of the unit.
func valueKind(t reflect.Type) (want string, takes []string) {
	switch {
	case t == reflect.TypeFor[Duration]():
		return `a duration in quotes such as "500ms"`, []string{"String", "Integer", "Float"}
	case t == reflect.TypeFor[Size]():
		return `a size such as 65536 or "64MiB"`, []string{"Integer", "String", "Float"}
	case t.Kind() == reflect.String:
		return "a string", []string{"String"}
	case t.Kind() == reflect.Bool:
		return "true or false", []string{"Bool"}
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		return "an integer", []string{"Integer"}
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Float64:
		return "a number (or inf, without quotes)", []string{"Float", "Integer"}
	}
	return "", nil
}

// isTable reports whether a field of type t holds a TOML table.
func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Map || t.Kind() == reflect.Struct && t != reflect.TypeFor[Duration]()
}

// fieldByTag returns the field of struct v whose toml tag is name.
func fieldByTag(v reflect.Value, name string) reflect.Value {
	for i := range v.NumField() {
		if strings.Split(v.Type().Field(i).Tag.Get("toml"), ",")[0] == name {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}

// decodeError turns an error of decoding into Config into an *Error.
var lineKeyRE = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "([^"]*)"\): (.*)$`)

func decodeError(name string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		// Raised by a value's UnmarshalText/UnmarshalTOML or a range check.
		return &Error{File: name, Line: pe.Position.Line, Column: pe.Position.Col, Key: pe.LastKey,
			Err: fmt.Errorf("%w: %s", ErrInvalid, pe.Message)}
	}
	if m := lineKeyRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: name, Line: line, Key: m[2], Err: fmt.Errorf("%w: %s", ErrType, friendlyType(m[3]))}
	}
	return &Error{File: name, Err: fmt.Errorf("%w: %s", ErrType, strings.TrimPrefix(err.Error(), "toml: "))}
}

var typeRE = regexp.MustCompile(`incompatible types: TOML value has type (\S+); destination has type (.+)$`)

// friendlyType rewrites the decoder's type mismatch message in TOML terms.
func friendlyType(msg string) string {
	m := typeRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	names := map[string]string{
		"int64": "an integer", "float64": "a float", "string": "a string", "bool": "a boolean",
		"map[string]interface {}": "a table", "[]interface {}": "an array",
		"integer": "an integer", "float": "a number", "boolean": "true or false", "map": "a table",
		"time.Time": "a date-time",
	}
	name := func(s string) string {
		if n, ok := names[s]; ok {
			return n
		}
		return s
	}
	return fmt.Sprintf("want %s, got %s", name(m[2]), name(m[1]))
}

// knownKeys holds every key path of Config, tables included; tableKeys
// those that hold a table ("gpio", "gpio.label_pins"); and wordless the
// names of the keys that take only a number or true or false (valueKind:
// no string), in every table that has a key of the name: text in quotes
// is no value of theirs.
var knownKeys, tableKeys, wordless = configKeys()

// configKeys walks Config's toml tags for knownKeys, tableKeys and
// wordless.
func configKeys() (known, tables, wordless map[string]bool) {
	known, tables, wordless = make(map[string]bool), make(map[string]bool), make(map[string]bool)
	text := map[string]bool{} // a key's name: whether a key of the name takes a string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("toml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			p := prefix + tag
			known[p] = true
			if isTable(f.Type) {
				tables[p] = true
				if f.Type.Kind() == reflect.Struct {
					walk(p+".", f.Type)
				}
				continue
			}
			_, takes := valueKind(f.Type)
			text[tag] = text[tag] || takes == nil || slices.Contains(takes, "String")
		}
	}
	walk("", reflect.TypeFor[Config]())
	for name, t := range text {
		if !t {
			wordless[name] = true
		}
	}
	return known, tables, wordless
}

// tableKey reports whether the known key k holds a table.
func tableKey(k toml.Key) bool { return tableKeys[strings.Join(k, ".")] }

// knownKey reports whether k is a key of Config, matching case exactly (the
// decoder itself would accept "Pulse" for "pulse").
func knownKey(k toml.Key) bool {
	if len(k) > 3 {
		return false // no key nests deeper
	}
	if len(k) == 3 && k[0] == "gpio" && k[1] == "label_pins" {
		return true // any label
	}
	return knownKeys[strings.Join(k, ".")]
}

// closestKey returns the known key closest to k, if it is close
// (suggest.Closest, as a mistyped flag's).
func closestKey(k toml.Key) string {
	return suggest.Closest(strings.ToLower(strings.Join(k, ".")), slices.Sorted(maps.Keys(knownKeys)))
}

// elsewhere returns the key of another table (or of none) with the last
// name of k, if there is one: the key written in the wrong table ("pulse"
// under [daemon], "model" under [spool]).
func elsewhere(k toml.Key) string {
	if len(k) > 2 {
		return "" // not one key in a wrong table
	}
	key, last := strings.Join(k, "."), strings.ToLower(k[len(k)-1])
	for _, c := range slices.Sorted(maps.Keys(knownKeys)) {
		if tableKeys[c] || c == key {
			continue
		}
		if c[strings.LastIndex(c, ".")+1:] == last {
			return c
		}
	}
	return ""
}

// keyPath joins the pieces of k with dots, quoting those that need it, as
// the key paths in errors are written.
func keyPath(k toml.Key) string {
	q := make([]string, len(k))
	for i, p := range k {
		q[i] = quoteKey(p)
	}
	return strings.Join(q, ".")
}

// quoteKey quotes a key piece for a key path if TOML needs it.
func quoteKey(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}
