package idempotency

import idem "github.com/gatewaycircuit/gatewaycircuit/idempotency"

// Submission is what Submit decided for one mutation.
type Submission struct {
	Decision Decision
	Key      string // the action's key
	// Header is the Idempotency-Key header value to send: the caller's own
	// value verbatim when it gave one (a server that expects "order-123"
	// must get exactly that), else the derived key as an sf-string.
	Header string
}

// Submit registers one mutation before it is sent: it fingerprints body,
// takes the key the app gave (given: the Idempotency-Key header value, as an
// sf-string or a bare token, read by idempotency.ParseKey; "" for none) or derives the action's key, and
// begins it in the ledger. random feeds a new key (crypto.getRandomValues in
// the browser). operation is built with Operation (its query string is
// stored hashed either way). Errors: *SizeError, *DepthError, *KeyError,
// *KeyReusedError.
func (l *Ledger) Submit(nowMs int64, operation, given string, body []byte, random [16]byte) (Submission, error) {
	fp, err := l.Fingerprint(body)
	if err != nil {
		return Submission{}, err
	}
	var key string
	if given == "" {
		key = l.Derive(nowMs, operation, fp, random)
	} else if key, err = idem.ParseKey(given); err != nil {
		return Submission{}, err
	}
	d, err := l.Begin(nowMs, operation, key, fp)
	if err != nil {
		return Submission{}, err
	}
	if given != "" {
		return Submission{Decision: d, Key: key, Header: given}, nil
	}
	header, err := idem.HeaderValue(key)
	return Submission{Decision: d, Key: key, Header: header}, err
}
