// Package idempotency is what every ledger of the product shares about an
// Idempotency-Key (IETF httpapi draft "The Idempotency-Key HTTP Header
// Field"): the browser's tab ledger, the Go server's middleware (module
// ledger) and the edge gateway's Durable Object (edge/ledger). Each of
// those stores records its own way and carries requests and answers; what
// a key is, what a body's identity is, and what a request with a key does
// are decided here, once:
//
//   - the key travels in the Header; ParseKey reads it as a Structured
//     Field string (`"order-7"`) or a bare token (`order_7`), both the same
//     key; HeaderValue writes it as a string;
//   - a body is compared by its Fingerprint: its Canonical form (JSON
//     without whitespace, object keys sorted, as the browser serialises
//     it), hashed;
//   - on a server, a key is scoped by principal and operation (an ID), and
//     the record (Record) is written pending before the request runs;
//   - given the stored record, Policy.Decide says: Run (no live record, or
//     a failed one with the same body), Replay (a done record: its answer
//     with Idempotency-Replayed: true), Mismatch (another body: 422),
//     InFlight (the first request still runs, in this process or another:
//     409 with Retry-After, at once; it neither waits nor runs) or InDoubt
//     (a pending record whose holder is gone: 409, never run twice);
//   - the answer's status says what becomes of the record (OutcomeOf):
//     kept and replayed (Done), released for a retry to run as new
//     (NotDone: 408, 409, 429, 503), or kept as failed so that a retry with
//     the same body runs again (Unknown: another 5xx, or no answer);
//   - records are kept Policy.RetentionMs and at most Policy.MaxEntries per
//     principal (the oldest finished first; a pending one stays until its
//     retention ends), on read as on write: Policy.Cutoff and
//     Policy.MaxBeforeClaim are what the stores filter and prune by;
//   - the ledgers' own answers are Problems: a status and a small JSON body.
//
// A duplicate that arrives while the first request runs is answered 409
// idempotency_in_flight wherever it arrives, as Stripe and the draft
// answer a concurrent request with the same key: the rule does not depend
// on which process a load balancer picks, and the duplicate's retry gets
// the first request's recorded answer (or runs, when that answer released
// the key or left its effect unknown).
//
// The browser's wasm links this package: it reads no clock (times are Unix
// milliseconds passed in), and uses neither fmt, time, encoding/json nor
// crypto.
package idempotency
