package circuit

import (
	"errors"
	"math"
	"strconv"

	"github.com/gatewaycircuit/gatewaycircuit/policy/jsontext"
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

// ParsePayload reads `{"until":<ms>,"httpStatus":<int>}`, with the optional
// `"strikes":<int>` and `"halfOpenUntil":<ms>` that this version writes.
//
// The rules are those of JSON.parse followed by the shim's type checks, so the
// Go and JS readers agree on every input (testdata/payload_vectors.json):
// any JSON object is accepted, unknown keys are ignored, a repeated key keeps
// its last value, "until" must be an integral finite number and "httpStatus"
// an integer in 100..599. The optional fields never make an entry malformed
// (an older writer's entry stays valid, and a bad optional value must not
// close an armed circuit): "strikes" counts when it is an integral number
// >= 0, "halfOpenUntil" when it is an integral finite number, and either is
// otherwise read as absent (0). It does not use encoding/json: that import alone
// would add ~250 KB (brotli) to the wasm every user downloads.
func ParsePayload(raw string) (State, error) {
	if utf16Len(raw) > MaxPayloadLen {
		return State{}, malformed("longer than " + strconv.Itoa(MaxPayloadLen) + " characters")
	}
	p := parser{Scanner: jsontext.Scanner{S: raw}}
	var until, status, strikes, halfOpen number
	p.Space()
	if p.Peek() != '{' {
		return State{}, malformed("not a JSON object")
	}
	ok := p.members(func() bool {
		switch p.key {
		case "until":
			until = p.num()
		case "httpStatus":
			status = p.num()
		case "strikes":
			strikes = p.num()
		case "halfOpenUntil":
			halfOpen = p.num()
		default:
			return p.value(1)
		}
		return !p.err
	})
	if !ok || p.err {
		return State{}, malformed("not valid JSON")
	}
	p.Space()
	if !p.AtEnd() {
		return State{}, malformed("trailing data after the object")
	}
	switch {
	case !until.isNum:
		return State{}, malformed(`"until" is missing or not a number`)
	case !until.integral():
		return State{}, malformed(`"until" is not an integer`)
	case !status.isNum:
		return State{}, malformed(`"httpStatus" is missing or not a number`)
	case status.v != math.Trunc(status.v) || status.v < 100 || status.v > 599:
		return State{}, malformed(`"httpStatus" is not an HTTP status (100-599)`)
	}
	s := State{Until: saturate(until.v), HTTPStatus: int(status.v)}
	if strikes.integral() && strikes.v >= 0 {
		s.Strikes = int(min(strikes.v, MaxStrikes+1)) // clamp reports the excess
	}
	if halfOpen.integral() {
		s.HalfOpenUntil = saturate(halfOpen.v)
	}
	return s, nil
}

// AppendPayload appends the stored form of s to b. The optional fields are
// written only when they say something.
func AppendPayload(b []byte, s State) []byte {
	b = append(b, `{"until":`...)
	b = strconv.AppendInt(b, s.Until, 10)
	b = append(b, `,"httpStatus":`...)
	b = strconv.AppendInt(b, int64(s.HTTPStatus), 10)
	if s.Strikes > 0 {
		b = append(b, `,"strikes":`...)
		b = strconv.AppendInt(b, int64(s.Strikes), 10)
	}
	if s.HalfOpenUntil != 0 {
		b = append(b, `,"halfOpenUntil":`...)
		b = strconv.AppendInt(b, s.HalfOpenUntil, 10)
	}
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

// integral reports a finite number with no fraction.
func (n number) integral() bool {
	return n.isNum && !math.IsInf(n.v, 0) && n.v == math.Trunc(n.v)
}

// parser validates a JSON document without building it (the grammar is
// jsontext's, as JSON.parse's), decodes object keys so that escaped
// spellings of "until" still match, and reads the two numbers.
type parser struct {
	jsontext.Scanner
	key string // the key of the member being read (members)
	err bool
}

// maxDepth is far beyond what MaxPayloadLen allows, so it never disagrees
// with JSON.parse on an accepted length.
const maxDepth = MaxPayloadLen + 1

// value skips any JSON value.
func (p *parser) value(depth int) bool {
	if depth > maxDepth || p.AtEnd() {
		return false
	}
	switch p.Peek() {
	case '{':
		return p.members(func() bool { return p.value(depth + 1) })
	case '[':
		p.I++
		p.Space()
		if p.Eat(']') {
			return true
		}
		for {
			p.Space()
			if !p.value(depth + 1) {
				return false
			}
			p.Space()
			if p.Eat(']') {
				return true
			}
			if !p.Eat(',') {
				return false
			}
		}
	case '"':
		_, ok := p.str()
		return ok
	case 't':
		return p.Lit("true")
	case 'f':
		return p.Lit("false")
	case 'n':
		return p.Lit("null")
	default:
		_, ok := p.Number()
		return ok
	}
}

// members reads an object whose '{' comes next, calling member for each
// value after its key (p.key holds the key).
func (p *parser) members(member func() bool) bool {
	if !p.Eat('{') {
		return false
	}
	p.Space()
	if p.Eat('}') {
		return true
	}
	for {
		p.Space()
		key, ok := p.str()
		if !ok {
			return false
		}
		p.Space()
		if !p.Eat(':') {
			return false
		}
		p.Space()
		p.key = key
		if !member() {
			return false
		}
		p.Space()
		if p.Eat('}') {
			return true
		}
		if !p.Eat(',') {
			return false
		}
	}
}

// num reads the value of a known key. A non-number value is valid JSON but
// not a number; invalid JSON sets p.err.
func (p *parser) num() number {
	if c := p.Peek(); c == '-' || (c >= '0' && c <= '9') {
		tok, ok := p.Number()
		if !ok {
			p.err = true
			return number{}
		}
		return number{v: jsontext.Float(tok), isNum: true}
	}
	if !p.value(0) {
		p.err = true
	}
	return number{}
}

// str reads a JSON string and returns it decoded. Only keys need the decoded
// form; lone surrogates decode to U+FFFD, which never equals a key we match.
func (p *parser) str() (string, bool) {
	if !p.Eat('"') {
		return "", false
	}
	start := p.I
	plain := true
	for p.I < len(p.S) {
		c := p.S[p.I]
		switch {
		case c == '"':
			raw := p.S[start:p.I]
			p.I++
			if plain {
				return raw, true
			}
			return unescape(raw), true
		case c < 0x20:
			return "", false
		case c == '\\':
			plain = false
			p.I++
			if p.I >= len(p.S) {
				return "", false
			}
			if p.S[p.I] == 'u' {
				if _, ok := jsontext.Hex4(p.S[p.I+1:]); !ok {
					return "", false
				}
				p.I += 5
			} else if _, ok := jsontext.Escape(p.S[p.I]); ok {
				p.I++
			} else {
				return "", false
			}
		default:
			p.I++
		}
	}
	return "", false
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
		if raw[i] != 'u' {
			e, _ := jsontext.Escape(raw[i])
			b = append(b, e)
			continue
		}
		u, _ := jsontext.Hex4(raw[i+1:])
		r := rune(u)
		i += 4
		if r >= 0xD800 && r < 0xDC00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
			if lo, _ := jsontext.Hex4(raw[i+3:]); lo >= 0xDC00 && lo < 0xE000 {
				r = 0x10000 + (r-0xD800)<<10 + (rune(lo) - 0xDC00)
				i += 6
			}
		}
		b = appendRune(b, r)
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
