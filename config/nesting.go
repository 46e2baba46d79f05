package config

import "strings"

// MaxFileBytes bounds a configuration file (and each drop-in): a
// configuration is a few KiB.
const MaxFileBytes = 1 << 20

// maxNesting bounds how deep arrays and inline tables may nest in a
// configuration file. setmatchd's own keys nest 3 deep at most; the TOML
// decoder's work grows with the square of the depth (x = {a={a=…}} 5000
// deep took seconds to parse and gigabytes to report), so deeper files are
// refused before they are parsed.
const maxNesting = 16

// tooDeep returns the line and column (1-based) where the arrays and inline
// tables of the TOML text first nest more than maxNesting deep, or a key
// has more than maxNesting dotted parts (a.a.a… = 1 nests tables as
// deep, at the same cost), or 0, 0. It skips strings and comments; it does
// not otherwise check the syntax, which the decoder does next.
func tooDeep(text string) (line, col int) {
	depth, dots := 0, 0 // dots: in the key (or value) since the last delimiter
	line, lineStart := 1, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '.':
			if dots++; dots > maxNesting {
				return line, i - lineStart + 1
			}
		case '=', ',':
			dots = 0
		case '\n':
			line, lineStart, dots = line+1, i+1, 0
		case '#':
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j - 1
			} else {
				i = len(text)
			}
		case '"', '\'':
			q := text[i : i+1]
			if strings.HasPrefix(text[i:], strings.Repeat(q, 3)) {
				q = strings.Repeat(q, 3)
			}
			j, unterminated := i+len(q), false
			for j < len(text) && !strings.HasPrefix(text[j:], q) {
				if text[j] == '\\' && c == '"' && j+1 < len(text) && text[j+1] != '\n' {
					j++ // an escaped character; a line-ending backslash leaves its newline to be counted
				} else if text[j] == '\n' {
					if len(q) == 1 {
						unterminated = true // the decoder says so
						break
					}
					line, lineStart = line+1, j+1
				}
				j++
			}
			if unterminated {
				i = j - 1 // the newline is the loop's to count
			} else {
				i = min(j+len(q), len(text)) - 1
			}
		case '[', '{':
			depth, dots = depth+1, 0
			if depth > maxNesting {
				return line, i - lineStart + 1
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return 0, 0
}
