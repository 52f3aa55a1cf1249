//go:build !(js && wasm)

package abi

// The declarations below are the documentation and the generator's input;
// they stay out of the wasm (only the constants in abi.go are linked in).

import (
	"github.com/gatewaycircuit/gatewaycircuit/internal/guard"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/policy/emptyttl"
)

// Param is one argument of an export: f64 or i32.
type Param struct{ Name, Type string }

// Export is one //go:wasmexport function.
type Export struct {
	Name   string
	Params []Param
	Result string // "f64", "i32" or "" for none
	Doc    string
}

// Import is one function the JS glue gives the wasm (module ImportModule),
// declared with //go:wasmimport in internal/jsbridge. Pointers are i32
// addresses in Go's memory.
type Import struct {
	Name   string
	Params []Param
	Result string
	Doc    string
}

// Value is one named number that crosses the boundary.
type Value struct {
	Name  string
	Value int64
	Doc   string
}

// Enum is a named set of values.
type Enum struct {
	Name   string
	Doc    string
	Values []Value
}

// LineFrame is a frame that is a list of lines (the fixed frames are structs
// in layout.go): the kinds of line it holds (structs of package line), tried
// in this order on each line.
type LineFrame struct {
	Name  string
	Lines []string
	Doc   string
}

// Exports is every //go:wasmexport of wasm/main.go (a test checks both ways).
var Exports = []Export{
	{"gc_buf", nil, "i32", "Address of the string buffer (valid until gc_reserve)."},
	{"gc_reserve", []Param{{"n", "i32"}}, "i32", "Grows the string buffer to at least n bytes (≤ MaxFrame) and returns its new address; 0 when n is too large."},
	{"gc_out", nil, "i32", "Address of out: OutLen float64 slots."},
	{"gc_quiet", nil, "i32", "Address of an int32 holding the Quiet bits."},
	{"gc_quiet_statuses", nil, "i32", "Address of the quiet-status table: QuietStatusLen bytes, index status - StatusOpaque; 1 when that answer to a plain GET on the quiet path changes nothing (set by gc_configure)."},
	{"gc_configure", []Param{{"now", "f64"}, {"len", "i32"}}, "i32", "Reads the Attributes frame, applies defaults, restores the stored state; writes the Options frame into the buffer and returns its length, or CodeNotStarted with the message."},
	{"gc_begin", []Param{{"now", "f64"}, {"len", "i32"}}, "i32", "Decides for the Request frame: a Kind in the low byte, FlagChanged, FlagKeyed; out holds BeginOut."},
	{"gc_adopt", []Param{{"sent", "f64"}, {"len", "i32"}}, "f64", "A ticket for a plain GET sent at sent on the quiet path whose answer matters (Request frame); 0: out of scope."},
	{"gc_finish", []Param{{"now", "f64"}, {"ticket", "f64"}, {"status", "i32"}, {"len", "i32"}}, "i32", "The answer to ticket (Answer frame): flags; out holds FinishOut."},
	{"gc_observe", []Param{{"now", "f64"}, {"sent", "f64"}, {"answered", "f64"}, {"status", "i32"}, {"len", "i32"}}, "i32", "The answer (at answered) to a request sent (at sent) before the wasm ran (Observe frame); flags."},
	{"gc_abort", []Param{{"ticket", "f64"}}, "i32", "Every caller of ticket left: 1 = abort the network request."},
	{"gc_body", []Param{{"n", "i32"}}, "i32", "Address where JS writes a body of n bytes (valid until the next call)."},
	{"gc_store", []Param{{"now", "f64"}, {"ticket", "f64"}, {"bytes", "f64"}, {"small", "i32"}}, "f64", "Keeps a body of that size as the ticket's copy (bytes -1: no copy was taken; the ticket ends); small ≥ 0: the whole body, at most ShortBody bytes, is in gc_body. Returns the copy id (0: not kept)."},
	{"gc_dropped", nil, "f64", "The next stale copy whose body JS must release, or 0."},
	{"gc_idem_begin", []Param{{"now", "f64"}, {"len", "i32"}, {"r0", "i32"}, {"r1", "i32"}, {"r2", "i32"}, {"r3", "i32"}}, "i32", "Registers a mutation gc_begin said is keyed (Mutation frame, the caller's own Idempotency-Key read from its headers; body in gc_body; r0..r3 random): an idempotency.Decision, the Key frame in the buffer (its length in IdemBeginOut); or a Code."},
	{"gc_idem_finish", []Param{{"now", "f64"}, {"len", "i32"}, {"status", "i32"}}, "i32", "Records a mutation's answer (Action frame: the Key frame without its header)."},
	{"gc_arm", []Param{{"now", "f64"}, {"status", "i32"}, {"ttlMs", "f64"}}, "i32", "Arms the circuit (ttlMs 0: the policy's TTL); flags, or CodeBadArm with the message in the buffer."},
	{"gc_clear", nil, "i32", "The user's retry: flags."},
	{"gc_read", []Param{{"now", "f64"}}, "i32", "Expires the circuit if its time is up: flags."},
	{"gc_succeeded", []Param{{"sent", "f64"}, {"answered", "f64"}}, "", "The latest unreported in-scope success (a quiet-path answer), with when it was sent and answered; reported before a failure, for the trip rule."},
	{"gc_forget", []Param{{"now", "f64"}}, "", "The logout: drops copies, pending keys and in-flight sharing (then read gc_dropped)."},
	{"gc_reload", []Param{{"now", "f64"}}, "i32", "Reads the circuit and the pauses from storage again (a page restored from the back/forward cache): flags."},
	{"gc_pauses", nil, "i32", "Writes the Pauses frame into the buffer and returns its length."},
	{"gc_until", nil, "f64", "The circuit's deadline (0: closed)."},
	{"gc_status", nil, "i32", "The status that armed the circuit (0: closed)."},
	{"gc_metric", []Param{{"i", "i32"}}, "f64", "Go's counter i (metrics.Counter; GO_COUNTED in metrics.gen.ts names each)."},
	{"gc_message_len", nil, "i32", "Length in the buffer of the message of the last refusal."},
}

// Call is the typed call the shim makes over an export: abi.gen.ts's
// bindCalls is generated from Calls, so how an export's arguments are
// framed and its result read is written once, here, for both sides.
type Call struct {
	Export string // the export it calls
	Method string // its name on the shim's Engine
	// Frame is the frame (a layout of layout.go, or a LineFrame) the export
	// takes as its len parameter: the method takes the frame's fields in
	// its place, in field order (a line frame: the frame's text), except
	// those Fixed sets.
	Frame string
	Fixed map[string]string // frame field → the value it always has
	// Refuse: a frame over MaxFrame is not written, and the method answers
	// null (gc_begin: the request is not decided on a prefix, see MaxFrame).
	// A call without it throws there.
	Refuse bool
	// Body: the method takes a body after the frame's fields, written at
	// gc_body before the call.
	Body bool
	// Random are the export's parameters the method fills with random words
	// (crypto.getRandomValues) instead of taking them.
	Random []string
	// SkipEmpty: a frame whose fields are all empty is not encoded; it goes
	// as length 0, which Go reads as the same frame.
	SkipEmpty bool
	Result    Result
	// Flags are the Flag values or-ed into the result (ResultFlags), each
	// read as a boolean; "Kind" is the Kind in the low byte (Flag.KindMask).
	Flags []string
	Out   string // the out layout the export fills, read into the answer
	Enum  string // ResultDecision: the enum of the non-negative results
}

// Result is how a call reads its export's result.
type Result int

const (
	ResultAsIs     Result = iota // the number (or nothing)
	ResultBool                   // 1 is true
	ResultText                   // the length of a text Go wrote into the buffer: the text
	ResultFlags                  // an answer of Flags and Out; a lone flag is a boolean
	ResultDrain                  // called until it answers 0: the list of its answers
	ResultDecision               // a Code (negative; the message in the buffer) or a value of Enum, then Out
)

// Calls are the typed calls over the exports. An export that is not here
// (addresses, the buffer's growth, gc_body and gc_store) is called by
// engine.ts.
var Calls = []Call{
	{Export: "gc_configure", Method: "configure", Frame: "Attributes"},
	{Export: "gc_begin", Method: "begin", Frame: "Request", Refuse: true, Result: ResultFlags, Flags: []string{"Kind", "Changed", "Keyed"}, Out: "BeginOut"},
	{Export: "gc_adopt", Method: "adopt", Frame: "Request", Fixed: map[string]string{"Method": "GET", "Headers": ""}},
	{Export: "gc_finish", Method: "finish", Frame: "Answer", SkipEmpty: true, Result: ResultFlags, Flags: []string{"Changed", "Retry", "WantBody", "Serve"}, Out: "FinishOut"},
	{Export: "gc_observe", Method: "observe", Frame: "Observe", Result: ResultFlags, Flags: []string{"Changed"}},
	{Export: "gc_abort", Method: "abort", Result: ResultBool},
	{Export: "gc_dropped", Method: "dropped", Result: ResultDrain},
	{Export: "gc_idem_begin", Method: "idemBegin", Frame: "Mutation", Body: true, Random: []string{"r0", "r1", "r2", "r3"}, Result: ResultDecision, Enum: "Idem", Out: "IdemBeginOut"},
	{Export: "gc_idem_finish", Method: "idemFinish", Frame: "Action"},
	{Export: "gc_arm", Method: "arm"},
	{Export: "gc_clear", Method: "clear"},
	{Export: "gc_read", Method: "read"},
	{Export: "gc_succeeded", Method: "succeeded"},
	{Export: "gc_forget", Method: "forget"},
	{Export: "gc_reload", Method: "reload"},
	{Export: "gc_pauses", Method: "pauses", Result: ResultText},
	{Export: "gc_until", Method: "until"},
	{Export: "gc_status", Method: "status"},
	{Export: "gc_metric", Method: "metric"},
	{Export: "gc_message_len", Method: "message", Result: ResultText},
}

// Imports is every //go:wasmimport of internal/jsbridge (a test checks both
// ways): sessionStorage, reached without syscall/js. A value syscall/js hands
// Go stays in wasm_exec.js's table until a Go finalizer releases it, and in a
// page that only calls exports no finalizer runs: every stored string Go read
// or wrote would stay for good. Keys and values cross as UTF-8 in Go's memory.
var Imports = []Import{
	{"storage_get", []Param{{"key", "i32"}, {"keyLen", "i32"}, {"dst", "i32"}, {"dstCap", "i32"}}, "i32",
		"sessionStorage.getItem(key), written as UTF-8 at dst when it fits in dstCap bytes; returns its length in bytes (more than dstCap: what is at dst is partial; call again with room), or a Storage code."},
	{"storage_set", []Param{{"key", "i32"}, {"keyLen", "i32"}, {"value", "i32"}, {"valueLen", "i32"}}, "i32",
		"sessionStorage.setItem(key, value): 0, or a Storage code."},
	{"storage_remove", []Param{{"key", "i32"}, {"keyLen", "i32"}}, "i32",
		"sessionStorage.removeItem(key): 0, or a Storage code."},
}

// LineFrames are the frames that are lists of lines.
var LineFrames = []LineFrame{
	{"Attributes", []string{"Option"}, "gc_configure's argument, the script tag's data-* attributes as given, the resolved scope and the page's origin."},
	{"Options", []string{"Warning", "Option"}, "gc_configure's answer, the options in force (guard.ParseAttributes) and one warning per refused attribute."},
	{"Pauses", []string{"Asked", "Pause"}, "the 429 pauses as stored (cooldown.Encode, key gateway_cooldown_v1) and as gc_pauses gives them."},
}

// Enums are the value sets that cross.
var Enums = []Enum{
	{"Kind", "What to do with a request (guard.Kind), in the low byte of gc_begin's result.", []Value{
		{"Pass", int64(guard.Pass), "out of scope: native fetch, nothing to report"},
		{"Send", int64(guard.Send), "to the network, then gc_finish(ticket) or gc_abort"},
		{"Join", int64(guard.Join), "coalesced: share the answer of flight"},
		{"Wait", int64(guard.Wait), "half-open: wait for probe to end, then begin again"},
		{"Open", int64(guard.Open), "the circuit is armed: synthetic 503"},
		{"Cooling", int64(guard.Cooling), "the service asked for a pause (429): synthetic 503"},
		{"Negative", int64(guard.Negative), "the same GET failed moments ago: synthetic 503"},
		{"Stale", int64(guard.Stale), "answer with the stale copy"},
		{"Cached", int64(guard.Cached), "the key keeps answering empty: answer with its copy"},
	}},
	{"Flag", "Bits or-ed into results.", []Value{
		{"Retry", FlagRetry, "gc_finish: send again after FinishOut.WaitMs"},
		{"WantBody", FlagWantBody, "gc_finish: keep a copy of the body (gc_store)"},
		{"Serve", FlagServe, "gc_finish: answer with the stale copy in out"},
		{"Changed", FlagChanged, "what blocks requests changed (the circuit or a pause): read it and notify"},
		{"Keyed", FlagKeyed, "gc_begin, Send: a mutation that carries an Idempotency-Key: gc_idem_begin before it is sent"},
		{"KindMask", KindMask, "gc_begin: the Kind"},
	}},
	{"Code", "Negative results.", []Value{
		{"NotStarted", CodeNotStarted, ""},
		{"BadArm", CodeBadArm, ""},
		{"KeyReused", CodeKeyReused, "IDEMPOTENCY_KEY_REUSED: answered locally with a 422"},
		{"LedgerFull", CodeLedgerFull, "IDEMPOTENCY_LEDGER_FULL"},
		{"BodyTooBig", CodeBodyTooBig, "IDEMPOTENCY_BODY_TOO_LARGE"},
		{"BodyDeep", CodeBodyDeep, "IDEMPOTENCY_BODY_TOO_DEEP"},
		{"BadKey", CodeBadKey, "IDEMPOTENCY_BAD_KEY"},
		{"IdemOff", CodeIdemOff, "sent without a key"},
	}},
	{"Idem", "gc_idem_begin's positive results (idempotency.Decision).", []Value{
		{"Start", int64(idempotency.Start), "a new action: send with the key"},
		{"Retry", int64(idempotency.Retry), "a retry of an action without a definitive answer: same key"},
		{"Join", int64(idempotency.Join), "the same action is in flight: share its answer"},
	}},
	{"StorageResult", "The storage imports' negative results.", []Value{
		{"Missing", StorageMissing, "storage_get: no such key"},
		{"Unavailable", StorageUnavailable, "no sessionStorage, or it threw (sandboxed frame, storage disabled)"},
		{"Quota", StorageQuota, "storage_set: the value does not fit"},
	}},
	{"Quiet", "Bits at gc_quiet.", []Value{
		{"Idle", QuietIdle, "no policy has anything to say about a plain GET"},
		{"Coalesce", QuietCoalesce, "identical plain GETs share one request"},
	}},
	{"Status", "Statuses that are not HTTP statuses.", []Value{
		{"NoAnswer", StatusNoAnswer, "fetch rejected"},
		{"Opaque", StatusOpaque, "an opaque or opaqueredirect response"},
	}},
	{"Limit", "Sizes.", []Value{
		{"OutLen", OutLen, "float64 slots in out"},
		{"MaxFrame", MaxFrame, "longest frame, in bytes"},
		{"MaxCopy", MaxCopy, "largest body kept as a copy, in bytes"},
		{"QuietStatusLen", QuietStatusLen, "bytes in the quiet-status table (gc_quiet_statuses)"},
		{"ShortBody", emptyttl.ShortBody, "longest body gc_store is given whole (in gc_body): Go decides whether it is empty"},
	}},
}
