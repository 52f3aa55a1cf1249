// Package line declares the frames that are lists of lines, one struct per
// kind of line: the Attributes frame the shim gives gc_configure, the
// Options frame gc_configure answers with, and the Pauses frame (the 429
// pauses as stored, and as gc_pauses gives them). The generator in
// internal/abi reads this file and writes the Go parsers and writers
// (line.gen.go) and the TypeScript ones (js/src/abi.gen.ts), so neither
// side spells a line's format by hand; abi.LineFrames says which lines each
// frame holds.
//
// A line's fields come in order. A field tagged before:"x" starts with x; a
// field tagged after:"x" ends at the first x after it (so it never holds
// x); the last field is the rest of the line. An int64 field is a whole
// number as text.Int reads it. A line that does not parse as any kind of its
// frame is skipped. A writer turns each "\r" or "\n" inside a field into a
// space, so one line stays one line.
//
//go:generate go test -run TestGeneratedTypeScript ../internal/abi -args -update
package line

// Option is a "name=value" line: in the Attributes frame, an attribute as
// the page gave it (the DOMStringMap's name: ttlMs, …), data-scope as one
// scope= line per prefix the shim resolved against the page, the page's
// origin as pageOrigin=, and navigation=reload when the page is a reload
// (F5); in the Options frame, an option in force, as
// guard.ParseAttributes normalized it, then the scope again.
type Option struct {
	Name  string `after:"="`
	Value string
}

// Warning is a "!text" line of the Options frame: an attribute Go refused,
// and the value it used instead.
type Warning struct {
	Text string `before:"!"`
}

// Pause is an "untilMs strikes service" line of the Pauses frame: the
// service (a scope entry, or an origin) is paused until untilMs after
// strikes 429s in a row.
type Pause struct {
	UntilMs int64  `after:" "`
	Strikes int64  `after:" "`
	Service string // never empty in a line Go wrote
}

// Asked is a "retry-after service" line of the Pauses frame: it follows the
// Pause of the service, and says the server asked for that pause with
// Retry-After. A reader that skips it still reads every pause right.
type Asked struct {
	Service string `before:"retry-after "`
}

// appendFlat appends s to b with each "\r" and "\n" turned into a space.
func appendFlat(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}
