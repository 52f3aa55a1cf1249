package ledgercore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
)

// ParseKey reads an Idempotency-Key field value in either form clients
// send: a Structured Field string (`"order-7"`, what the browser module and
// the IETF draft send) or a bare token (`order_7`, what Stripe's clients and
// most others send). Both name the same key. Refused: an empty key, one
// longer than idempotency.MaxKeyLen, any character that is not printable
// ASCII, and a bare value holding a space, a comma, a quote or a backslash
// (it would read differently as a Structured Field).
func ParseKey(value string) (string, bool) {
	v := strings.Trim(value, " \t")
	if strings.HasPrefix(v, `"`) {
		key, err := idempotency.ParseHeader(v)
		return key, err == nil
	}
	if strings.ContainsAny(v, ` ,"\`) || idempotency.CheckKey(v) != nil {
		return "", false
	}
	return v, true
}

// Fingerprint is a body's identity: its canonical form (the browser
// module's: JSON without whitespace, object keys sorted, arrays in order),
// marked as JSON ("j:") or not ("b:") and hashed with SHA-256. A body longer
// than maxBytes is refused with an error that unwraps to
// idempotency.ErrTooLarge; see FingerprintProblem.
func Fingerprint(body []byte, maxBytes int) (string, error) {
	canon, isJSON, err := idempotency.Canonical(body, idempotency.Limits{MaxBytes: maxBytes})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	kind := "b:"
	if isJSON {
		kind = "j:"
	}
	return kind + hex.EncodeToString(sum[:]), nil
}

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
	if errors.Is(err, idempotency.ErrTooLarge) {
		return Problem{413, "body_too_large", err.Error()}
	}
	return Problem{400, "body_not_fingerprintable", err.Error()}
}

// UnavailableProblem is the answer when the store fails.
func UnavailableProblem(err error) Problem { return Problem{500, "ledger_unavailable", err.Error()} }

// Body is the problem's JSON body.
func (p Problem) Body() []byte {
	b, _ := json.Marshal(struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}{p.Code, p.Message})
	return b
}
