package idempotency

import (
	"errors"
	"unicode/utf16"
)

// Problem is an answer of the ledger's own: a status and a small JSON body,
// {"error": Code, "message": Message}, sent with Content-Type
// application/json and Cache-Control no-store.
type Problem struct {
	Status  int
	Code    string
	Message string
}

// The ledger's own answers: the refusals of Decide and of the adapters.
var (
	ProblemKeyReused       = Problem{422, "idempotency_key_reused", "the key was used with another body"}
	ProblemInDoubt         = Problem{409, "idempotency_in_doubt", "an earlier request with this key was cut off; its outcome is unknown"}
	ProblemInFlight        = Problem{409, "idempotency_in_flight", "the first request with this key is still in flight"}
	ProblemInvalidKey      = Problem{400, "invalid_idempotency_key", "send one Idempotency-Key: a quoted string or a token of printable ASCII"}
	ProblemHandlerFailed   = Problem{500, "handler_failed", "the handler failed"}
	ProblemUnauthenticated = Problem{401, "unauthenticated", "this operation needs an authenticated caller"}
)

// FingerprintProblem is the answer to a body Fingerprint refused: 413 when
// it is too large, 400 otherwise (nested too deep).
func FingerprintProblem(err error) Problem {
	if errors.Is(err, ErrTooLarge) {
		return Problem{413, "body_too_large", err.Error()}
	}
	return Problem{400, "body_not_fingerprintable", err.Error()}
}

// UnavailableProblem is the answer when the store fails.
func UnavailableProblem(err error) Problem { return Problem{500, "ledger_unavailable", err.Error()} }

// Body is the problem's JSON body. It is written by hand, as JSON.stringify
// writes strings: encoding/json would weigh on the browser's wasm, which
// links this package.
func (p Problem) Body() []byte {
	b := append([]byte(nil), `{"error":`...)
	b = appendString(b, utf16.Encode([]rune(p.Code)))
	b = append(b, `,"message":`...)
	b = appendString(b, utf16.Encode([]rune(p.Message)))
	return append(b, '}')
}
