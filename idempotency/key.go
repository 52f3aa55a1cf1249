package idempotency

import (
	"errors"
	"strconv"
)

// Header is the request header that carries the key.
const Header = "Idempotency-Key"

// MaxKeyLen bounds a key, in characters. The draft sets no limit; 255 is
// what the large APIs accept, and a UUID is 36.
const MaxKeyLen = 255

// ErrInvalidKey is the sentinel for a key or header value that cannot be used.
var ErrInvalidKey = errors.New("idempotency: invalid key")

// KeyError says why. It unwraps to ErrInvalidKey.
type KeyError struct{ Reason string }

func (e *KeyError) Error() string { return "idempotency: invalid key: " + e.Reason }

// Unwrap makes errors.Is(err, ErrInvalidKey) true.
func (e *KeyError) Unwrap() error { return ErrInvalidKey }

// NewKey formats 16 random bytes as a version 4 UUID (RFC 9562), the form
// the draft recommends, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324". The
// bytes must come from a cryptographic source (crypto.getRandomValues in the
// browser); six of their bits are overwritten by the version and variant.
func NewKey(random [16]byte) string {
	random[6] = random[6]&0x0f | 0x40
	random[8] = random[8]&0x3f | 0x80
	out := make([]byte, 0, 36)
	for i, b := range random {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexDigits[b>>4], hexDigits[b&15])
	}
	return string(out)
}

// CheckKey reports whether key can be sent: 1 to MaxKeyLen characters, each
// printable ASCII (what an sf-string can hold).
func CheckKey(key string) error {
	if key == "" {
		return &KeyError{"empty"}
	}
	if len(key) > MaxKeyLen {
		return &KeyError{"longer than " + strconv.Itoa(MaxKeyLen) + " characters"}
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e {
			return &KeyError{"character " + strconv.Itoa(i) + " is not printable ASCII"}
		}
	}
	return nil
}

// HeaderValue returns the Idempotency-Key field value for key: an sf-string
// (RFC 8941 §3.3.3), quoted, with '"' and '\' escaped by a backslash.
func HeaderValue(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return sfString(key), nil
}

func sfString(key string) string {
	out := make([]byte, 0, len(key)+2)
	out = append(out, '"')
	for i := 0; i < len(key); i++ {
		if key[i] == '"' || key[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, key[i])
	}
	return string(append(out, '"'))
}

// ParseKey reads an Idempotency-Key field value in either form clients
// send, and returns the key: a Structured Field string (RFC 8941 §3.3.3,
// `"order-7"`: what the browser module and the IETF draft send) or a bare
// token (`order_7`: what Stripe's clients and most others send). Both name
// the same key. Surrounding spaces and tabs are ignored. Refused with a
// *KeyError: an empty key, one longer than MaxKeyLen, a character that is
// not printable ASCII, parameters or a list (`"k";a=1`, `"k", "j"`), and a
// bare value holding a space, a comma, a quote or a backslash (it would read
// differently as a Structured Field).
func ParseKey(value string) (string, error) {
	s := trimOWS(value)
	if s == "" || s[0] != '"' {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == ' ' || c == ',' || c == '"' || c == '\\' {
				return "", &KeyError{"character " + strconv.Itoa(i) + " of a bare key is a space, a comma, a quote or a backslash"}
			}
		}
		if err := CheckKey(s); err != nil {
			return "", err
		}
		return s, nil
	}
	key := make([]byte, 0, len(s)-1)
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
			if i == len(s) || (s[i] != '"' && s[i] != '\\') {
				return "", &KeyError{"bad escape in the string"}
			}
			key = append(key, s[i])
		case c == '"':
			if i != len(s)-1 {
				return "", &KeyError{"data after the closing quote"}
			}
			if err := CheckKey(string(key)); err != nil {
				return "", err
			}
			return string(key), nil
		case c < 0x20 || c > 0x7e:
			return "", &KeyError{"character " + strconv.Itoa(i) + " is not printable ASCII"}
		default:
			key = append(key, c)
		}
	}
	return "", &KeyError{"no closing quote"}
}

func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
