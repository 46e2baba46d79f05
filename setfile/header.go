package setfile

import (
	"strconv"
	"strings"
)

// parseNPYHeader parses the header dictionary of an .npy file, a Python
// literal such as
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
//
// followed by spaces and a newline. Exactly the keys descr, fortran_order
// and shape must be present, once each, in any order; descr is a string,
// fortran_order True or False, shape a tuple of non-negative integers.
// Anything else (structured dtypes, expressions, unknown keys) is an error.
func parseNPYHeader(s string) (*npyHeader, error) {
	p := &hparser{s: s}
	h := &npyHeader{}
	var seen [3]bool
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.peek() == '}' {
			p.pos++
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		var k int
		switch key {
		case "descr":
			k = 0
			p.space()
			if p.peek() == '[' {
				return nil, p.errorf("structured dtype (a list of fields) is not supported; save a plain float64 2-D array")
			}
			if h.descr, err = p.str(); err != nil {
				return nil, err
			}
		case "fortran_order":
			k = 1
			if h.fortran, err = p.boolean(); err != nil {
				return nil, err
			}
		case "shape":
			k = 2
			if h.shape, err = p.tuple(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errorf("unexpected key %q (only 'descr', 'fortran_order' and 'shape' are allowed)", key)
		}
		if seen[k] {
			return nil, p.errorf("key %q appears twice", key)
		}
		seen[k] = true
		p.space()
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
		default:
			return nil, p.errorf("expected ',' or '}'")
		}
	}
	for i, name := range []string{"descr", "fortran_order", "shape"} {
		if !seen[i] {
			return nil, formatErr("malformed .npy header: key '%s' is missing", name)
		}
	}
	// Only padding may follow: spaces and a final newline (NumPy writes
	// '\n'; some writers pad with NUL bytes).
	rest := strings.TrimRight(s[p.pos:], " \t\r\n\x00")
	if rest != "" {
		return nil, p.errorf("unexpected text after the header dictionary")
	}
	return h, nil
}

type hparser struct {
	s   string
	pos int
}

func (p *hparser) errorf(format string, a ...any) error {
	args := append([]any{p.pos}, a...)
	return formatErr("malformed .npy header at byte %d: "+format, args...)
}

// spaceChars is the white space the header may hold between its tokens.
const spaceChars = " \t\n\r"

func (p *hparser) space() {
	for p.pos < len(p.s) && strings.IndexByte(spaceChars, p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *hparser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *hparser) expect(c byte) error {
	p.space()
	if p.peek() != c {
		if p.pos >= len(p.s) {
			return p.errorf("header ends early, expected %q", c)
		}
		return p.errorf("expected %q, found %q", c, p.s[p.pos])
	}
	p.pos++
	return nil
}

// str parses a quoted string without escapes ('…' or "…").
func (p *hparser) str() (string, error) {
	p.space()
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("expected a quoted string")
	}
	start := p.pos + 1
	for i := start; i < len(p.s); i++ {
		c := p.s[i]
		switch {
		case c == q:
			p.pos = i + 1
			return p.s[start:i], nil
		case c == '\\' || c < 0x20 || c >= 0x7f:
			p.pos = i
			return "", p.errorf("unexpected character %q in string", c)
		}
	}
	p.pos = len(p.s)
	return "", p.errorf("unterminated string")
}

func (p *hparser) boolean() (bool, error) {
	p.space()
	switch {
	case strings.HasPrefix(p.s[p.pos:], "True"):
		p.pos += 4
		return true, nil
	case strings.HasPrefix(p.s[p.pos:], "False"):
		p.pos += 5
		return false, nil
	}
	return false, p.errorf("expected True or False")
}

// tuple parses (), (n,), (n, m), (n, m,) … of non-negative integers.
func (p *hparser) tuple() ([]int, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	var dims []int
	for {
		p.space()
		if p.peek() == ')' {
			p.pos++
			break
		}
		if len(dims) >= 32 {
			return nil, p.errorf("shape has more than 32 dimensions")
		}
		n, err := p.integer()
		if err != nil {
			return nil, err
		}
		dims = append(dims, n)
		p.space()
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
		default:
			return nil, p.errorf("expected ',' or ')' in shape")
		}
	}
	// In Python (n) is not a tuple, but NumPy always writes (n,); accept
	// only what NumPy writes: a one-element shape needs the comma, which
	// the loop above cannot check, so look back past the white space it
	// skipped (space), tabs and line breaks too.
	if len(dims) == 1 && !strings.HasSuffix(strings.TrimRight(p.s[:p.pos-1], spaceChars), ",") {
		return nil, p.errorf("shape (%d) is not a tuple; expected (%d,)", dims[0], dims[0])
	}
	return dims, nil
}

func (p *hparser) integer() (int, error) {
	start := p.pos
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == start {
		return 0, p.errorf("expected a non-negative integer in shape")
	}
	digits := p.s[start:p.pos]
	// Python 2 wrote long integers with an L suffix; NumPy still reads them.
	if p.peek() == 'L' {
		p.pos++
	}
	if len(digits) > 1 && digits[0] == '0' {
		p.pos = start
		return 0, p.errorf("integer %q has a leading zero", digits)
	}
	n, err := strconv.ParseInt(digits, 10, 0)
	if err != nil {
		p.pos = start
		return 0, p.errorf("dimension %s is too large", digits)
	}
	return int(n), nil
}
