// Package policyerr is the error every policy's Validate returns: it names the
// bad field (by its JSON name) and unwraps to the policy package's sentinel,
// so callers match with errors.Is(err, negcache.ErrInvalidPolicy) or read the
// field with errors.As(err, &pe) where pe is a *policyerr.Error.
package policyerr

import "errors"

// Error names a bad field of a policy.
type Error struct {
	Sentinel error  // the package's ErrInvalidPolicy
	Field    string // JSON name of the field
	Reason   string
}

// New returns an *Error for field that unwraps to sentinel.
func New(sentinel error, field, reason string) error {
	return &Error{Sentinel: sentinel, Field: field, Reason: reason}
}

func (e *Error) Error() string { return e.Sentinel.Error() + ": " + e.Field + ": " + e.Reason }

// Unwrap makes errors.Is(err, e.Sentinel) true.
func (e *Error) Unwrap() error { return e.Sentinel }

// Field returns the field named by err when err is an *Error of the package
// whose sentinel is given, and "" otherwise.
func Field(err, sentinel error) string {
	var e *Error
	if errors.As(err, &e) && errors.Is(err, sentinel) {
		return e.Field
	}
	return ""
}
