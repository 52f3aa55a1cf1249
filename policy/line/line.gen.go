// Code generated from line.go (go generate ./line). DO NOT EDIT.

package line

import (
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/text"
)

// ParseOption reads an Option line (without its "\n"); ok is false when it is not one.
func ParseOption(line string) (v Option, ok bool) {
	if v.Name, line, ok = strings.Cut(line, "="); !ok {
		return v, false
	}
	v.Value = line
	return v, true
}

// AppendOption appends v to b as an Option line, "\n" included.
func AppendOption(b []byte, v Option) []byte {
	b = appendFlat(b, v.Name)
	b = append(b, "="...)
	b = appendFlat(b, v.Value)
	return append(b, '\n')
}

// ParseWarning reads a Warning line (without its "\n"); ok is false when it is not one.
func ParseWarning(line string) (v Warning, ok bool) {
	if line, ok = strings.CutPrefix(line, "!"); !ok {
		return v, false
	}
	v.Text = line
	return v, true
}

// AppendWarning appends v to b as a Warning line, "\n" included.
func AppendWarning(b []byte, v Warning) []byte {
	b = append(b, "!"...)
	b = appendFlat(b, v.Text)
	return append(b, '\n')
}

// ParsePause reads a Pause line (without its "\n"); ok is false when it is not one.
func ParsePause(line string) (v Pause, ok bool) {
	var f string
	if f, line, ok = strings.Cut(line, " "); !ok {
		return v, false
	}
	if v.UntilMs, ok = text.Int(f); !ok {
		return v, false
	}
	if f, line, ok = strings.Cut(line, " "); !ok {
		return v, false
	}
	if v.Strikes, ok = text.Int(f); !ok {
		return v, false
	}
	v.Service = line
	return v, true
}

// AppendPause appends v to b as a Pause line, "\n" included.
func AppendPause(b []byte, v Pause) []byte {
	b = strconv.AppendInt(b, v.UntilMs, 10)
	b = append(b, " "...)
	b = strconv.AppendInt(b, v.Strikes, 10)
	b = append(b, " "...)
	b = appendFlat(b, v.Service)
	return append(b, '\n')
}

// ParseAsked reads an Asked line (without its "\n"); ok is false when it is not one.
func ParseAsked(line string) (v Asked, ok bool) {
	if line, ok = strings.CutPrefix(line, "retry-after "); !ok {
		return v, false
	}
	v.Service = line
	return v, true
}

// AppendAsked appends v to b as an Asked line, "\n" included.
func AppendAsked(b []byte, v Asked) []byte {
	b = append(b, "retry-after "...)
	b = appendFlat(b, v.Service)
	return append(b, '\n')
}
