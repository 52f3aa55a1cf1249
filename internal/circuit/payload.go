package circuit

import (
	"errors"
	"math"
	"strconv"
)

// StorageKey is the sessionStorage key the circuit lives under. Existing apps
// already write it; the format must not change.
const StorageKey = "gateway_circuit_v1"

// MaxPayloadLen bounds what is parsed, in UTF-16 code units (what JS counts).
// A real payload is about 40; anything longer is malformed.
const MaxPayloadLen = 1024

// ErrMalformed is the sentinel for a stored payload that is not a circuit.
var ErrMalformed = errors.New("circuit: malformed payload")

// PayloadError says why a payload is malformed. It unwraps to ErrMalformed.
type PayloadError struct{ Reason string }

func (e *PayloadError) Error() string { return "circuit: malformed payload: " + e.Reason }

// Unwrap makes errors.Is(err, ErrMalformed) true.
func (e *PayloadError) Unwrap() error { return ErrMalformed }

func malformed(reason string) error { return &PayloadError{Reason: reason} }

// ParsePayload reads `{"until":<ms>,"httpStatus":<int>}`.
//
// The rules are those of JSON.parse followed by the shim's type checks, so the
// Go and JS readers agree on every input (testdata/payload_vectors.json):
// any JSON object is accepted, unknown keys are ignored, a repeated key keeps
// its last value, "until" must be an integral finite number and "httpStatus"
// an integer in 100..599. It does not use encoding/json: that import alone
// would add ~250 KB (brotli) to the wasm every user downloads.
func ParsePayload(raw string) (State, error) {
	if utf16Len(raw) > MaxPayloadLen {
		return State{}, malformed("longer than " + strconv.Itoa(MaxPayloadLen) + " characters")
	}
	p := parser{s: raw}
	p.space()
	if !p.eat('{') {
		return State{}, malformed("not a JSON object")
	}
	var until, status number
	p.space()
	if !p.eat('}') {
		for {
			p.space()
			key, ok := p.str()
			if !ok {
				return State{}, malformed("bad object key")
			}
			p.space()
			if !p.eat(':') {
				return State{}, malformed("missing ':' after key")
			}
			p.space()
			switch key {
			case "until":
				until = p.num()
			case "httpStatus":
				status = p.num()
			default:
				if !p.value(0) {
					return State{}, malformed("bad JSON value")
				}
			}
			if p.err {
				return State{}, malformed("bad JSON value")
			}
			p.space()
			if p.eat(',') {
				continue
			}
			if p.eat('}') {
				break
			}
			return State{}, malformed("expected ',' or '}'")
		}
	}
	p.space()
	if p.i != len(p.s) {
		return State{}, malformed("trailing data after the object")
	}
	switch {
	case !until.isNum:
		return State{}, malformed(`"until" is missing or not a number`)
	case math.IsInf(until.v, 0) || until.v != math.Trunc(until.v):
		return State{}, malformed(`"until" is not an integer`)
	case !status.isNum:
		return State{}, malformed(`"httpStatus" is missing or not a number`)
	case status.v != math.Trunc(status.v) || status.v < 100 || status.v > 599:
		return State{}, malformed(`"httpStatus" is not an HTTP status (100-599)`)
	}
	return State{Until: saturate(until.v), HTTPStatus: int(status.v)}, nil
}

// AppendPayload appends the stored form of s to b.
func AppendPayload(b []byte, s State) []byte {
	b = append(b, `{"until":`...)
	b = strconv.AppendInt(b, s.Until, 10)
	b = append(b, `,"httpStatus":`...)
	b = strconv.AppendInt(b, int64(s.HTTPStatus), 10)
	return append(b, '}')
}

// Payload returns the stored form of s.
func (s State) Payload() string { return string(AppendPayload(make([]byte, 0, 48), s)) }

func saturate(v float64) int64 {
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	if v <= math.MinInt64 {
		return math.MinInt64
	}
	return int64(v)
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// number is a parsed "until"/"httpStatus" value: isNum is false for any
// JSON value that is not a number.
type number struct {
	v     float64
	isNum bool
}

// parser is a minimal JSON validator over a string. It builds no values:
// it only checks the grammar (RFC 8259, as JSON.parse does), decodes object
// keys so that escaped spellings of "until" still match, and reads numbers.
type parser struct {
	s   string
	i   int
	err bool
}

// maxDepth is far beyond what MaxPayloadLen allows, so it never disagrees
// with JSON.parse on an accepted length.
const maxDepth = MaxPayloadLen + 1

func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) lit(word string) bool {
	if len(p.s)-p.i >= len(word) && p.s[p.i:p.i+len(word)] == word {
		p.i += len(word)
		return true
	}
	return false
}

// value skips any JSON value.
func (p *parser) value(depth int) bool {
	if depth > maxDepth || p.i >= len(p.s) {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		p.space()
		if p.eat('}') {
			return true
		}
		for {
			p.space()
			if _, ok := p.str(); !ok {
				return false
			}
			p.space()
			if !p.eat(':') {
				return false
			}
			p.space()
			if !p.value(depth + 1) {
				return false
			}
			p.space()
			if p.eat('}') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	case c == '[':
		p.i++
		p.space()
		if p.eat(']') {
			return true
		}
		for {
			p.space()
			if !p.value(depth + 1) {
				return false
			}
			p.space()
			if p.eat(']') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	case c == '"':
		_, ok := p.str()
		return ok
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	default:
		_, ok := p.numToken()
		return ok
	}
}

// num reads the value of a known key. A non-number value is valid JSON but
// not a number; invalid JSON sets p.err.
func (p *parser) num() number {
	if p.i < len(p.s) && (p.s[p.i] == '-' || (p.s[p.i] >= '0' && p.s[p.i] <= '9')) {
		tok, ok := p.numToken()
		if !ok {
			p.err = true
			return number{}
		}
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			p.err = true
			return number{}
		}
		return number{v: v, isNum: true}
	}
	if !p.value(0) {
		p.err = true
	}
	return number{}
}

// numToken scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) numToken() (string, bool) {
	start := p.i
	p.eat('-')
	switch {
	case p.eat('0'):
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.digits()
	default:
		return "", false
	}
	if p.eat('.') && !p.digits() {
		return "", false
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if !p.digits() {
			return "", false
		}
	}
	return p.s[start:p.i], true
}

func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str reads a JSON string and returns it decoded. Only keys need the decoded
// form; lone surrogates decode to U+FFFD, which never equals a key we match.
func (p *parser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	plain := true
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			raw := p.s[start:p.i]
			p.i++
			if plain {
				return raw, true
			}
			return unescape(raw), true
		case c < 0x20:
			return "", false
		case c == '\\':
			plain = false
			p.i++
			if p.i >= len(p.s) {
				return "", false
			}
			switch p.s[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				if len(p.s)-p.i < 5 || !isHex4(p.s[p.i+1:p.i+5]) {
					return "", false
				}
				p.i += 5
			default:
				return "", false
			}
		default:
			p.i++
		}
	}
	return "", false
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		if hexVal(s[i]) < 0 {
			return false
		}
	}
	return true
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// unescape decodes a string body already validated by str.
func unescape(raw string) string {
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := rune(0)
			for _, h := range []byte(raw[i+1 : i+5]) {
				r = r<<4 | rune(hexVal(h))
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				lo := rune(0)
				for _, h := range []byte(raw[i+3 : i+7]) {
					lo = lo<<4 | rune(hexVal(h))
				}
				if lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			b = appendRune(b, r)
		default: // '"', '\\', '/'
			b = append(b, raw[i])
		}
	}
	return string(b)
}

// appendRune is utf8.AppendRune without the import; surrogates become U+FFFD.
func appendRune(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
	case r >= 0xD800 && r < 0xE000:
		return append(b, 0xEF, 0xBF, 0xBD)
	case r < 0x10000:
		return append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	default:
		return append(b, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
}
