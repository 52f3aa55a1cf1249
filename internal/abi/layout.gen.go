// Code generated from layout.go (go generate ./internal/abi). DO NOT EDIT.

package abi

import "strings"

// OutLen is the number of float64 slots in out: the longest out layout.
const OutLen = 9

// PutBeginOut writes v into out, one slot per field in field order.
func PutBeginOut(out *[OutLen]float64, v *BeginOut) {
	out[0] = v.Ticket
	out[1] = v.Flight
	out[2] = v.Probe
	out[3] = v.ProbeTimeoutMs
	out[4] = v.UntilMs
	out[5] = v.Status
	out[6] = v.CopyID
	out[7] = v.CopyAgeMs
	out[8] = v.CopyStoredAtMs
}

// PutFinishOut writes v into out, one slot per field in field order.
func PutFinishOut(out *[OutLen]float64, v *FinishOut) {
	out[0] = v.WaitMs
	out[1] = v.CopyID
	out[2] = v.CopyAgeMs
	out[3] = v.CopyStoredAtMs
}

// PutIdemBeginOut writes v into out, one slot per field in field order.
func PutIdemBeginOut(out *[OutLen]float64, v *IdemBeginOut) {
	out[0] = v.KeyLen
}

// ReadRequest splits a Request frame; the strings share its memory.
func ReadRequest(frame string) (v Request) {
	v.Method, frame, _ = strings.Cut(frame, "\n")
	v.URL, frame, _ = strings.Cut(frame, "\n")
	v.Headers = frame
	return v
}

// WriteRequest joins a Request frame.
func WriteRequest(v *Request) string {
	return v.Method + "\n" + v.URL + "\n" + v.Headers
}

// ReadAnswer splits a Answer frame; the strings share its memory.
func ReadAnswer(frame string) (v Answer) {
	v.RetryAfter, frame, _ = strings.Cut(frame, "\n")
	v.CacheControl, frame, _ = strings.Cut(frame, "\n")
	v.FinalURL = frame
	return v
}

// WriteAnswer joins a Answer frame.
func WriteAnswer(v *Answer) string {
	return v.RetryAfter + "\n" + v.CacheControl + "\n" + v.FinalURL
}

// ReadObserve splits a Observe frame; the strings share its memory.
func ReadObserve(frame string) (v Observe) {
	v.Method, frame, _ = strings.Cut(frame, "\n")
	v.URL, frame, _ = strings.Cut(frame, "\n")
	v.RetryAfter, frame, _ = strings.Cut(frame, "\n")
	v.FinalURL = frame
	return v
}

// WriteObserve joins a Observe frame.
func WriteObserve(v *Observe) string {
	return v.Method + "\n" + v.URL + "\n" + v.RetryAfter + "\n" + v.FinalURL
}

// ReadMutation splits a Mutation frame; the strings share its memory.
func ReadMutation(frame string) (v Mutation) {
	v.Method, frame, _ = strings.Cut(frame, "\n")
	v.URL, frame, _ = strings.Cut(frame, "\n")
	v.Headers = frame
	return v
}

// WriteMutation joins a Mutation frame.
func WriteMutation(v *Mutation) string {
	return v.Method + "\n" + v.URL + "\n" + v.Headers
}

// ReadKey splits a Key frame; the strings share its memory.
func ReadKey(frame string) (v Key) {
	v.Operation, frame, _ = strings.Cut(frame, "\n")
	v.Key, frame, _ = strings.Cut(frame, "\n")
	v.Header = frame
	return v
}

// WriteKey joins a Key frame.
func WriteKey(v *Key) string {
	return v.Operation + "\n" + v.Key + "\n" + v.Header
}

// ReadAction splits a Action frame; the strings share its memory.
func ReadAction(frame string) (v Action) {
	v.Operation, frame, _ = strings.Cut(frame, "\n")
	v.Key = frame
	return v
}

// WriteAction joins a Action frame.
func WriteAction(v *Action) string {
	return v.Operation + "\n" + v.Key
}
