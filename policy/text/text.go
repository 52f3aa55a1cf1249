// Package text is the few strings and strconv functions the policies need,
// written without the tables those link into the wasm: strings.ToLower and
// strings.TrimSpace reach the unicode package's (~7 KB brotli) for non-ASCII
// input, and strconv's parsing errors its quoting code. Each answers as its
// counterpart does (text_test.go checks it).
package text

import "unicode/utf8"

// Lower is strings.ToLower for comparing with ASCII words or looking for
// them: it lowers A-Z and the two letters whose lower case is ASCII
// (U+0130 İ → i, U+212A Kelvin sign → k) and keeps every other byte, so
// Lower(s) == word exactly when strings.ToLower(s) == word for an ASCII word.
func Lower(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		case s[i:min(i+2, len(s))] == "\u0130":
			b = append(b, 'i')
			i++
		case s[i:min(i+3, len(s))] == "\u212a":
			b = append(b, 'k')
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// TrimSpace is strings.TrimSpace: it cuts the leading and trailing white
// space, Unicode's included.
func TrimSpace(s string) string {
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if !isSpace(r) {
			break
		}
		s = s[n:]
	}
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		if !isSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// isSpace is unicode.IsSpace: Latin-1's spaces and the White_Space property.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return 0x2000 <= r && r <= 0x200a
}

// Int is strconv.ParseInt(s, 10, 64) (and, int being 64 bits in the wasm,
// strconv.Atoi) without the error values: an optional sign and decimal
// digits in the int64 range, or false. strconv's errors link its quoting
// and printability tables.
func Int(s string) (int64, bool) {
	neg := s != "" && s[0] == '-'
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var n uint64 // ≤ 2⁶³, the magnitude of the smallest int64
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if d > 9 || n > (1<<63-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if !neg && n == 1<<63 {
		return 0, false
	}
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}
