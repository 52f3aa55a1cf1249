// Code generated from line.go (go generate ./internal/line). DO NOT EDIT.

package line

import (
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/internal/text"
)

// ParseOption reads an Option line (without its "\n"); ok is false when it is not one.
func ParseOption(line string) (v Option, ok bool) {
	if v.Name, line, ok = strings.Cut(line, "="); !ok {
		return v, false
	}
	v.Value = line
	return v, true
}

// WriteOption writes v as an Option line, "\n" included.
func WriteOption(b *strings.Builder, v Option) {
	b.WriteString(flat(v.Name))
	b.WriteString("=")
	b.WriteString(flat(v.Value))
	b.WriteByte('\n')
}

// ParseWarning reads a Warning line (without its "\n"); ok is false when it is not one.
func ParseWarning(line string) (v Warning, ok bool) {
	if line, ok = strings.CutPrefix(line, "!"); !ok {
		return v, false
	}
	v.Text = line
	return v, true
}

// WriteWarning writes v as a Warning line, "\n" included.
func WriteWarning(b *strings.Builder, v Warning) {
	b.WriteString("!")
	b.WriteString(flat(v.Text))
	b.WriteByte('\n')
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

// WritePause writes v as a Pause line, "\n" included.
func WritePause(b *strings.Builder, v Pause) {
	b.WriteString(strconv.FormatInt(v.UntilMs, 10))
	b.WriteString(" ")
	b.WriteString(strconv.FormatInt(v.Strikes, 10))
	b.WriteString(" ")
	b.WriteString(flat(v.Service))
	b.WriteByte('\n')
}

// ParseAsked reads an Asked line (without its "\n"); ok is false when it is not one.
func ParseAsked(line string) (v Asked, ok bool) {
	if line, ok = strings.CutPrefix(line, "retry-after "); !ok {
		return v, false
	}
	v.Service = line
	return v, true
}

// WriteAsked writes v as an Asked line, "\n" included.
func WriteAsked(b *strings.Builder, v Asked) {
	b.WriteString("retry-after ")
	b.WriteString(flat(v.Service))
	b.WriteByte('\n')
}
