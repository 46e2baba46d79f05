package config

import "strings"

// position is where a key is set in a file: 1-based line and column (in
// characters).
type position struct{ line, column int }

// keyPositions returns where each key of a TOML document is set, by key
// path as keyPath writes it: the first character of the key in its
// key = value line, or the '[' of a [table] header. Keys inside inline
// tables are found too. The document must be valid TOML (the decoder has
// checked it); on anything unexpected the scan stops and returns what it
// has found so far.
func keyPositions(text string) map[string]position {
	s := &scanner{r: []rune(text), line: 1, col: 1, pos: map[string]position{}}
	s.document()
	return s.pos
}

type scanner struct {
	r         []rune
	i         int
	line, col int
	pos       map[string]position
}

func (s *scanner) eof() bool { return s.i >= len(s.r) }

func (s *scanner) peek() rune {
	if s.eof() {
		return 0
	}
	return s.r[s.i]
}

func (s *scanner) has(prefix string) bool {
	return strings.HasPrefix(string(s.r[s.i:min(len(s.r), s.i+len(prefix))]), prefix)
}

func (s *scanner) next() rune {
	c := s.r[s.i]
	s.i++
	if c == '\n' {
		s.line, s.col = s.line+1, 1
	} else {
		s.col++
	}
	return c
}

func (s *scanner) here() position { return position{s.line, s.col} }

// skip passes spaces and tabs, and newlines and comments if lines.
func (s *scanner) skip(lines bool) {
	for !s.eof() {
		switch c := s.peek(); {
		case c == ' ' || c == '\t' || c == '\r':
			s.next()
		case lines && c == '\n':
			s.next()
		case lines && c == '#':
			for !s.eof() && s.peek() != '\n' {
				s.next()
			}
		default:
			return
		}
	}
}

// document scans [table] headers and key = value lines.
func (s *scanner) document() {
	var table []string
	for {
		s.skip(true)
		if s.eof() {
			return
		}
		if s.peek() == '[' {
			at := s.here()
			s.next()
			if s.peek() == '[' {
				s.next() // [[array of tables]]: its keys are not Config keys
			}
			s.skip(false)
			key, ok := s.key()
			if !ok {
				return
			}
			table = key
			s.pos[keyPath(table)] = at
			for !s.eof() && s.peek() != '\n' && s.peek() != '#' {
				s.next()
			}
			continue
		}
		if !s.keyValue(table) {
			return
		}
	}
}

// keyValue scans key = value under the table prefix.
func (s *scanner) keyValue(prefix []string) bool {
	at := s.here()
	key, ok := s.key()
	if !ok {
		return false
	}
	full := append(append([]string(nil), prefix...), key...)
	s.pos[keyPath(full)] = at
	s.skip(false)
	if s.eof() || s.next() != '=' {
		return false
	}
	s.skip(false)
	return s.value(full)
}

// key scans a dotted key of bare and quoted pieces.
func (s *scanner) key() ([]string, bool) {
	var parts []string
	for {
		s.skip(false)
		var b strings.Builder
		switch c := s.peek(); {
		case c == '"' || c == '\'':
			str, ok := s.str()
			if !ok {
				return nil, false
			}
			b.WriteString(str)
		case bare(c):
			for !s.eof() && bare(s.peek()) {
				b.WriteRune(s.next())
			}
		default:
			return nil, false
		}
		parts = append(parts, b.String())
		s.skip(false)
		if s.peek() != '.' {
			return parts, true
		}
		s.next()
	}
}

func bare(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value scans one value; the keys of an inline table are under path.
func (s *scanner) value(path []string) bool {
	switch c := s.peek(); {
	case c == '"' || c == '\'':
		_, ok := s.str()
		return ok
	case c == '{':
		return s.items('}', func() bool { return s.keyValue(path) })
	case c == '[':
		return s.items(']', func() bool { return s.value(path) })
	default:
		// Numbers, booleans, dates and times (which may hold a space).
		n := s.i
		for !s.eof() && !strings.ContainsRune(",]}\n#", s.peek()) {
			s.next()
		}
		return s.i > n
	}
}

// items scans an inline table or an array from its opening bracket to
// past its closing one, close: item scans each of the comma-separated
// items (a key = value, or a value) in between.
func (s *scanner) items(close rune, item func() bool) bool {
	s.next()
	for {
		s.skip(true)
		if s.eof() {
			return false
		}
		if s.peek() == close {
			s.next()
			return true
		}
		if !item() {
			return false
		}
		s.skip(true)
		if s.peek() == ',' {
			s.next()
		}
	}
}

// str scans a basic or literal string, single- or multi-line, and returns
// its text (escapes are kept as written except \" and \\, which is enough
// for keys).
func (s *scanner) str() (string, bool) {
	q := s.peek()
	multi := s.has(strings.Repeat(string(q), 3))
	if multi {
		s.next()
		s.next()
	}
	s.next()
	var b strings.Builder
	for !s.eof() {
		c := s.next()
		switch {
		case c == '\\' && q == '"' && !s.eof():
			e := s.next()
			if e != '"' && e != '\\' {
				b.WriteRune('\\')
			}
			b.WriteRune(e)
		case c == q && !multi:
			return b.String(), true
		case c == q && s.has(strings.Repeat(string(q), 2)):
			s.next()
			s.next()
			// Up to two more quotes may end the string's content.
			for s.peek() == q {
				s.next()
			}
			return b.String(), true
		case c == '\n' && !multi:
			return "", false
		default:
			b.WriteRune(c)
		}
	}
	return "", false
}
