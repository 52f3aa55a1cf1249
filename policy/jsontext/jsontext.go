// Package jsontext is the JSON grammar (RFC 8259, what JSON.parse accepts)
// as a scanner over a string, for the wasm-bound parsers that cannot afford
// encoding/json (~250 KB brotli): it recognises tokens and leaves building
// values to its caller.
package jsontext

// Scanner reads S from I on. Each method either consumes what it recognised
// and reports true, or reports false; on false, I may have moved past a
// malformed token, and the caller should give up.
type Scanner struct {
	S string
	I int
}

// Space skips JSON whitespace: space, tab, newline, carriage return.
func (s *Scanner) Space() {
	for s.I < len(s.S) {
		switch s.S[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Eat consumes c if it comes next.
func (s *Scanner) Eat(c byte) bool {
	if s.I < len(s.S) && s.S[s.I] == c {
		s.I++
		return true
	}
	return false
}

// Lit consumes word (true, false, null) if it comes next.
func (s *Scanner) Lit(word string) bool {
	if len(s.S)-s.I >= len(word) && s.S[s.I:s.I+len(word)] == word {
		s.I += len(word)
		return true
	}
	return false
}

// AtEnd reports whether everything has been read.
func (s *Scanner) AtEnd() bool { return s.I == len(s.S) }

// Peek returns the next byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	if s.I < len(s.S) {
		return s.S[s.I]
	}
	return 0
}

// Number consumes -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and
// returns it, ready for Float.
func (s *Scanner) Number() (string, bool) {
	start := s.I
	s.Eat('-')
	switch {
	case s.Eat('0'):
	case s.I < len(s.S) && s.S[s.I] >= '1' && s.S[s.I] <= '9':
		s.digits()
	default:
		return "", false
	}
	if s.Eat('.') && !s.digits() {
		return "", false
	}
	if s.Eat('e') || s.Eat('E') {
		if !s.Eat('+') {
			s.Eat('-')
		}
		if !s.digits() {
			return "", false
		}
	}
	return s.S[start:s.I], true
}

func (s *Scanner) digits() bool {
	start := s.I
	for s.I < len(s.S) && s.S[s.I] >= '0' && s.S[s.I] <= '9' {
		s.I++
	}
	return s.I > start
}

// Hex4 reads the four hex digits of a \u escape at the start of h.
func Hex4(h string) (uint16, bool) {
	if len(h) < 4 {
		return 0, false
	}
	var u uint16
	for i := 0; i < 4; i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		u = u<<4 | uint16(c)
	}
	return u, true
}

// Escape returns the character that the one-character escape \c stands for
// (\" \\ \/ \b \f \n \r \t); \u is read with Hex4.
func Escape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}
