package idempotency

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gatewaycircuit/gatewaycircuit/policy/fnv"
	"github.com/gatewaycircuit/gatewaycircuit/policy/jsontext"
	"github.com/gatewaycircuit/gatewaycircuit/policy/text"
)

// Defaults for Limits, applied in Limits.withDefaults.
const (
	DefaultMaxBodyBytes = 1 << 20 // a larger body gets no key: it is refused with a SizeError
	DefaultMaxDepth     = 64      // arrays and objects nested deeper are refused with a DepthError
)

// ErrTooLarge is the sentinel for a body longer than Limits.MaxBytes.
var ErrTooLarge = errors.New("idempotency: body too large to fingerprint")

// ErrTooDeep is the sentinel for a JSON body nested deeper than Limits.MaxDepth.
var ErrTooDeep = errors.New("idempotency: body nested too deeply to fingerprint")

// SizeError says how large the body was. It unwraps to ErrTooLarge.
type SizeError struct{ Size, Limit int }

func (e *SizeError) Error() string {
	return "idempotency: body of " + strconv.Itoa(e.Size) + " bytes is over the limit of " + strconv.Itoa(e.Limit)
}

// Unwrap makes errors.Is(err, ErrTooLarge) true.
func (e *SizeError) Unwrap() error { return ErrTooLarge }

// DepthError says which depth was exceeded. It unwraps to ErrTooDeep.
type DepthError struct{ Limit int }

func (e *DepthError) Error() string {
	return "idempotency: JSON body nested deeper than " + strconv.Itoa(e.Limit) + " levels"
}

// Unwrap makes errors.Is(err, ErrTooDeep) true.
func (e *DepthError) Unwrap() error { return ErrTooDeep }

// Limits bound the work of fingerprinting one body. Zero fields take the
// defaults above.
type Limits struct {
	MaxBytes int `json:"maxBodyBytes"` // default 1 MiB
	MaxDepth int `json:"maxDepth"`     // default 64; [] and {} are depth 1
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBodyBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// Canonical returns the form of body that is compared, and whether it is
// JSON.
//
// A body that is JSON (RFC 8259, valid UTF-8, whatever its Content-Type:
// apps often send JSON.stringify output as text/plain) becomes what this
// JS function returns for JSON.parse(body):
//
//	function canon(v) {
//	  if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
//	  if (v && typeof v === "object")
//	    return "{" + Object.keys(v).sort()
//	      .map(k => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}";
//	  return JSON.stringify(v);
//	}
//
// (not JSON.stringify of a key-sorted copy: JS objects list integer-like
// keys first whatever their insertion order). That is:
//   - whitespace between tokens is dropped;
//   - object keys are sorted by UTF-16 code units (the default sort order),
//     and a repeated key keeps its last value, as JSON.parse does;
//   - arrays keep their order;
//   - numbers are parsed as float64 and printed as Number.prototype.toString
//     does (shortest round-trip digits; exponent form below 1e-6 and from
//     1e21 up, as "1e+21"; -0 prints "0"; a number too large for float64
//     parses to Infinity and prints "null");
//   - strings escape only '"', '\\' and the controls below U+0020 (\b \f
//     \n \r \t, others as lowercase \u00xx), write everything else as UTF-8,
//     and write a lone surrogate as a lowercase \udxxx escape.
//
// testdata/canonical_vectors.json holds inputs and canon's outputs, made
// with node.
//
// Any other body (form data, text, binary, empty) is compared byte for byte.
// A body over l.MaxBytes is refused with a *SizeError; one that opens more
// than l.MaxDepth nested arrays or objects with a *DepthError, even if what
// follows would turn out not to be JSON.
func Canonical(body []byte, l Limits) (canon []byte, isJSON bool, err error) {
	l = l.withDefaults()
	if len(body) > l.MaxBytes {
		return nil, false, &SizeError{Size: len(body), Limit: l.MaxBytes}
	}
	if !utf8.Valid(body) {
		return body, false, nil
	}
	c := canonicalizer{Scanner: jsontext.Scanner{S: string(body)}, maxDepth: l.MaxDepth}
	c.Space()
	out, ok := c.value(make([]byte, 0, len(body)), 0)
	c.Space()
	if c.tooDeep {
		return nil, false, &DepthError{Limit: l.MaxDepth}
	}
	if !ok || !c.AtEnd() {
		return body, false, nil
	}
	return out, true, nil
}

// Fingerprint is a body's identity, the one every ledger stores and
// compares (the tab's, the Go server's, the edge's): "j:" or "b:" (JSON or
// bytes, see Canonical) and the FNV-1a 128-bit hash of the canonical form,
// in 32 hex digits. A body over l.MaxBytes is refused with a *SizeError
// (see FingerprintProblem).
//
// FNV is not a cryptographic hash, and need not be: a fingerprint is only
// compared with the one recorded under the same (principal, operation,
// key), so a collision could only make a caller's own second body get the
// answer to its first. crypto/sha256 would add ~95 KB (brotli) to the
// browser's wasm.
func Fingerprint(body []byte, l Limits) (string, error) {
	canon, isJSON, err := Canonical(body, l)
	if err != nil {
		return "", err
	}
	sum := fnv.Sum128a(canon)
	kind := "b:"
	if isJSON {
		kind = "j:"
	}
	return kind + hexString(sum[:]), nil
}

const hexDigits = "0123456789abcdef"

func hexString(b []byte) string {
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = hexDigits[c>>4], hexDigits[c&15]
	}
	return string(out)
}

// canonicalizer parses JSON and writes its canonical form in one pass.
type canonicalizer struct {
	jsontext.Scanner
	maxDepth int
	tooDeep  bool
}

// value appends the canonical form of the value at c.I to out.
func (c *canonicalizer) value(out []byte, depth int) ([]byte, bool) {
	switch b := c.Peek(); b {
	case '{', '[':
		if depth >= c.maxDepth {
			c.tooDeep = true
			return out, false
		}
		if b == '{' {
			return c.object(out, depth+1)
		}
		return c.array(out, depth+1)
	case '"':
		units, ok := c.str()
		return appendString(out, units), ok
	case 't':
		return append(out, "true"...), c.Lit("true")
	case 'f':
		return append(out, "false"...), c.Lit("false")
	case 'n':
		return append(out, "null"...), c.Lit("null")
	default:
		return c.number(out)
	}
}

func (c *canonicalizer) array(out []byte, depth int) ([]byte, bool) {
	c.I++ // '['
	out = append(out, '[')
	c.Space()
	if c.Eat(']') {
		return append(out, ']'), true
	}
	for n := 0; ; n++ {
		if n > 0 {
			out = append(out, ',')
		}
		c.Space()
		var ok bool
		if out, ok = c.value(out, depth); !ok {
			return out, false
		}
		c.Space()
		if c.Eat(']') {
			return append(out, ']'), true
		}
		if !c.Eat(',') {
			return out, false
		}
	}
}

// member is one key of an object with its value already in canonical form.
type member struct {
	key   []uint16
	value []byte
}

func (c *canonicalizer) object(out []byte, depth int) ([]byte, bool) {
	c.I++ // '{'
	c.Space()
	var members []member
	if !c.Eat('}') {
		for {
			c.Space()
			if c.Peek() != '"' {
				return out, false
			}
			key, ok := c.str()
			if !ok {
				return out, false
			}
			c.Space()
			if !c.Eat(':') {
				return out, false
			}
			c.Space()
			value, ok := c.value(nil, depth)
			if !ok {
				return out, false
			}
			members = append(members, member{key, value})
			c.Space()
			if c.Eat('}') {
				break
			}
			if !c.Eat(',') {
				return out, false
			}
		}
	}
	members = sortMembers(members)
	out = append(out, '{')
	for n, m := range members {
		if n > 0 {
			out = append(out, ',')
		}
		out = appendString(out, m.key)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}'), true
}

// sortMembers sorts ms by key and drops repeated keys but the last (which
// JSON.parse keeps). The sort is a stable merge sort: O(n log n), because a
// 1 MiB body can hold 100 000 keys (an insertion sort took 30 s on that),
// and written out, because package sort and slices pull pdqsort into the
// wasm.
func sortMembers(ms []member) []member {
	mergeSort(ms, make([]member, len(ms)))
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && compareUnits(m.key, ms[i+1].key) == 0 {
			continue // a later duplicate follows: stability keeps parse order
		}
		out = append(out, m)
	}
	return out
}

func mergeSort(a, tmp []member) {
	if len(a) <= 12 {
		for i := 1; i < len(a); i++ {
			for j := i; j > 0 && compareUnits(a[j-1].key, a[j].key) > 0; j-- {
				a[j-1], a[j] = a[j], a[j-1]
			}
		}
		return
	}
	mid := len(a) / 2
	mergeSort(a[:mid], tmp[:mid])
	mergeSort(a[mid:], tmp[mid:])
	copy(tmp, a)
	i, j, k := 0, mid, 0
	for ; i < mid && j < len(a); k++ {
		if compareUnits(tmp[j].key, tmp[i].key) < 0 {
			a[k], j = tmp[j], j+1
		} else {
			a[k], i = tmp[i], i+1
		}
	}
	k += copy(a[k:], tmp[i:mid])
	copy(a[k:], tmp[j:len(a)])
}

func compareUnits(a, b []uint16) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

// str reads a JSON string into UTF-16 code units, the way JS holds it, so
// that lone surrogates survive and keys sort as in JS.
func (c *canonicalizer) str() ([]uint16, bool) {
	c.I++ // '"'
	var units []uint16
	for c.I < len(c.S) {
		b := c.S[c.I]
		switch {
		case b == '"':
			c.I++
			return units, true
		case b < 0x20:
			return nil, false
		case b == '\\':
			if c.I+1 >= len(c.S) {
				return nil, false
			}
			esc := c.S[c.I+1]
			c.I += 2
			if esc == 'u' {
				u, ok := jsontext.Hex4(c.S[c.I:])
				if !ok {
					return nil, false
				}
				c.I += 4
				units = append(units, u)
				continue
			}
			ch, ok := jsontext.Escape(esc)
			if !ok {
				return nil, false
			}
			units = append(units, uint16(ch))
		default:
			r, size := utf8.DecodeRuneInString(c.S[c.I:]) // valid: checked by Canonical
			c.I += size
			units = utf16.AppendRune(units, r)
		}
	}
	return nil, false
}

// appendString writes units as JSON.stringify writes a string.
func appendString(out []byte, units []uint16) []byte {
	out = append(out, '"')
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case u == '"' || u == '\\':
			out = append(out, '\\', byte(u))
		case u == '\b':
			out = append(out, '\\', 'b')
		case u == '\f':
			out = append(out, '\\', 'f')
		case u == '\n':
			out = append(out, '\\', 'n')
		case u == '\r':
			out = append(out, '\\', 'r')
		case u == '\t':
			out = append(out, '\\', 't')
		case u < 0x20:
			out = append(out, '\\', 'u', '0', '0', hexDigits[u>>4], hexDigits[u&15])
		case utf16.IsSurrogate(rune(u)):
			if u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] < 0xE000 {
				out = utf8.AppendRune(out, utf16.DecodeRune(rune(u), rune(units[i+1])))
				i++
				continue
			}
			out = append(out, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&15], hexDigits[u>>4&15], hexDigits[u&15])
		default:
			out = utf8.AppendRune(out, rune(u))
		}
	}
	return append(out, '"')
}

// number appends the number at c.I as Number.prototype.toString would.
func (c *canonicalizer) number(out []byte) ([]byte, bool) {
	tok, ok := c.Number()
	if !ok {
		return out, false
	}
	return appendNumber(out, jsontext.Float(tok)), true
}

// appendNumber implements Number::toString (ECMA-262 6.1.6.1.20) for the
// values JSON can hold; JSON.stringify writes non-finite numbers as null.
func appendNumber(out []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return append(out, "null"...)
	case v == 0:
		return append(out, '0')
	case v < 0:
		out = append(out, '-')
		v = -v
	}
	// Shortest round-trip digits d1.d2...dk and exponent: v = 0.d1...dk × 10^n.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], v, 'e', -1, 64)
	mant, exp, _ := cutByte(e, 'e')
	digits := make([]byte, 0, len(mant))
	for _, b := range mant {
		if b != '.' {
			digits = append(digits, b)
		}
	}
	e10, _ := text.Int(string(exp))
	x := int(e10)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for ; k < n; k++ {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for ; n < 0; n++ {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if x >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(x), 10)
	}
	return out
}

func cutByte(s []byte, sep byte) (before, after []byte, found bool) {
	for i, b := range s {
		if b == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, nil, false
}
