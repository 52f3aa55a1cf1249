//go:build !(js && wasm)

package abi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// messageExport gives the message of a refusal (ResultDecision).
const messageExport = "gc_message_len"

// tsCalls renders bindCalls: one typed method per Call, which frames its
// arguments and reads its export's result as the Call declares.
func tsCalls(w func(...string), ls []Layout) error {
	layouts := map[string]Layout{}
	for _, l := range ls {
		layouts[l.Name] = l
	}
	exports := map[string]Export{}
	for _, e := range Exports {
		exports[e.Name] = e
	}
	if _, ok := exports[messageExport]; !ok {
		return fmt.Errorf("abi: no export %s", messageExport)
	}
	w()
	w("/** What the typed calls need of Go's memory (engine.ts gives it). */")
	w("export interface CallIO {")
	w("  /** Writes s as a frame into Go's buffer, whole; returns its length in bytes. Over MaxFrame it throws, or returns -1 when `refuse`. */")
	w("  put(s: string, refuse?: boolean): number;")
	w("  /** Writes b where gc_body says. */")
	w("  body(b: Uint8Array): void;")
	w("  /** out, viewed after the call that filled it (Go's memory may have grown). */")
	w("  out(): Float64Array;")
	w("  /** n bytes of the buffer as text, after the call that wrote them. */")
	w("  text(n: number): string;")
	w("}")
	w()
	w("/** The typed calls over the exports (internal/abi Calls): each frames its arguments and reads its result as declared there. */")
	w("export function bindCalls(ex: Exports, io: CallIO) {")
	w("  return {")
	for _, c := range Calls {
		e, ok := exports[c.Export]
		if !ok {
			return fmt.Errorf("abi: Calls: no export %s", c.Export)
		}
		body, params, err := callBody(c, e, layouts)
		if err != nil {
			return fmt.Errorf("abi: Calls: %s: %w", c.Export, err)
		}
		doc := e.Doc
		if c.Refuse {
			doc += " Null: the frame is over MaxFrame."
		}
		w("    /** ", e.Name, ": ", doc, " */")
		w("    ", c.Method, "(", strings.Join(params, ", "), ") {")
		for _, l := range body {
			w("      ", l)
		}
		w("    },")
	}
	w("  };")
	w("}")
	return nil
}

// callBody is the TypeScript of one call: its statements and parameters.
func callBody(c Call, e Export, layouts map[string]Layout) (body, params []string, err error) {
	var args, pre []string
	taken := map[string]bool{"r": true, "out": true, "io": true, "ex": true, "all": true, "v": true, "len": true, "random": true}
	param := func(name, typ string) error {
		if taken[name] {
			return fmt.Errorf("a parameter named %s twice, or named as a local", name)
		}
		taken[name] = true
		params = append(params, name+": "+typ)
		return nil
	}
	if c.Body {
		pre = append(pre, "io.body(body);")
	}
	if len(c.Random) > 0 {
		pre = append(pre, "const random = crypto.getRandomValues(new Int32Array("+strconv.Itoa(len(c.Random))+"));")
	}
	framed := false
	drawn := 0
	for _, p := range e.Params {
		if i := slices.Index(c.Random, p.Name); i >= 0 {
			args = append(args, "random["+strconv.Itoa(i)+"]!")
			drawn++
			continue
		}
		if p.Name != "len" {
			if err := param(p.Name, "number"); err != nil {
				return nil, nil, err
			}
			args = append(args, p.Name)
			continue
		}
		framed = true
		arg, put, err := frameArg(c, layouts, param)
		if err != nil {
			return nil, nil, err
		}
		pre = append(pre, put...)
		args = append(args, arg)
	}
	if framed != (c.Frame != "") {
		return nil, nil, fmt.Errorf("Frame %q, but the export takes a len parameter: %v", c.Frame, framed)
	}
	if drawn != len(c.Random) {
		return nil, nil, fmt.Errorf("Random names a parameter the export does not have")
	}
	if c.Body {
		if err := param("body", "Uint8Array"); err != nil {
			return nil, nil, err
		}
	}
	body = pre
	call := "ex." + e.Name + "(" + strings.Join(args, ", ") + ")"
	if e.Result == "" && c.Result != ResultAsIs {
		return nil, nil, fmt.Errorf("the export has no result to read")
	}
	if (c.Out != "") != (c.Result == ResultDecision || c.Result == ResultFlags && len(c.Flags) > 1) {
		return nil, nil, fmt.Errorf("Out %q with Result %d and %d flags", c.Out, c.Result, len(c.Flags))
	}
	switch c.Result {
	case ResultAsIs:
		return append(body, "return "+call+";"), params, nil
	case ResultBool:
		return append(body, "return "+call+" === 1;"), params, nil
	case ResultText:
		return append(body, "return io.text("+call+");"), params, nil
	case ResultDrain:
		if len(e.Params) != 0 {
			return nil, nil, fmt.Errorf("a drained export takes no parameter")
		}
		return append(body, "const all: number[] = [];", "for (let v = "+call+"; v !== 0; v = "+call+") all.push(v);", "return all;"), params, nil
	case ResultFlags:
		var props []string
		for _, f := range c.Flags {
			if f == "Kind" {
				props = append(props, "kind: (r & Flag.KindMask) as Kind")
				continue
			}
			if !slices.ContainsFunc(flagEnum().Values, func(v Value) bool { return v.Name == f }) {
				return nil, nil, fmt.Errorf("no Flag %s", f)
			}
			props = append(props, lowerCamel(f)+": (r & Flag."+f+") !== 0")
		}
		if len(c.Flags) == 1 && c.Flags[0] != "Kind" {
			return append(body, "return ("+call+" & Flag."+c.Flags[0]+") !== 0;"), params, nil
		}
		body = append(body, "const r = "+call+";")
		read, slots, err := outProps(c.Out, layouts, false)
		if err != nil {
			return nil, nil, err
		}
		body = append(append(body, read...), "return {")
		for _, p := range append(props, slots...) {
			body = append(body, "  "+p+",")
		}
		return append(body, "};"), params, nil
	case ResultDecision:
		if !slices.ContainsFunc(Enums, func(en Enum) bool { return en.Name == c.Enum }) {
			return nil, nil, fmt.Errorf("no enum %q", c.Enum)
		}
		code := "code: r as Code | " + c.Enum
		_, zero, err := outProps(c.Out, layouts, true)
		if err != nil {
			return nil, nil, err
		}
		read, slots, _ := outProps(c.Out, layouts, false)
		body = append(body, "const r = "+call+";",
			"if (r < 0) return { "+strings.Join(append([]string{code, "message: io.text(ex." + messageExport + "())"}, zero...), ", ")+" };")
		body = append(body, read...)
		return append(body, "return { "+strings.Join(append([]string{code, `message: ""`}, slots...), ", ")+" };"), params, nil
	}
	return nil, nil, fmt.Errorf("unknown Result %d", c.Result)
}

// frameArg is the len argument of call c: its frame written from the
// method's parameters (declared through param), and the statements before
// the call.
func frameArg(c Call, layouts map[string]Layout, param func(name, typ string) error) (arg string, pre []string, err error) {
	refuse := ""
	if c.Refuse {
		refuse = ", true"
	}
	if slices.ContainsFunc(LineFrames, func(f LineFrame) bool { return f.Name == c.Frame }) {
		if c.Refuse {
			return "", nil, fmt.Errorf("Refuse with a line frame")
		}
		name := lowerCamel(c.Frame)
		return "io.put(" + name + ")", nil, param(name, "string")
	}
	l, ok := layouts[c.Frame]
	if !ok || !l.Frame {
		return "", nil, fmt.Errorf("no frame %s", c.Frame)
	}
	var fields, given []string
	fixed := 0
	for _, f := range l.Fields {
		if v, ok := c.Fixed[f.Name]; ok {
			fields = append(fields, f.TS+": "+strconv.Quote(v))
			fixed++
			continue
		}
		if err := param(f.TS, "string"); err != nil {
			return "", nil, err
		}
		fields = append(fields, f.TS)
		given = append(given, f.TS)
	}
	if fixed != len(c.Fixed) {
		return "", nil, fmt.Errorf("Fixed names a field %s does not have", c.Frame)
	}
	put := "io.put(write" + c.Frame + "({ " + strings.Join(fields, ", ") + " })" + refuse + ")"
	if c.Refuse {
		if c.SkipEmpty {
			return "", nil, fmt.Errorf("Refuse with SkipEmpty")
		}
		return "len", []string{"const len = " + put + ";", "if (len < 0) return null;"}, nil
	}
	if !c.SkipEmpty {
		return put, nil, nil
	}
	if len(given) == 0 || fixed != 0 {
		return "", nil, fmt.Errorf("SkipEmpty with fixed fields")
	}
	return "n", []string{"const n = " + strings.Join(given, " || ") + " ? " + put + " : 0;"}, nil
}

// outProps are the properties an answer reads from out layout name (zero:
// their zero values), and the statements that read the frames among them.
func outProps(name string, layouts map[string]Layout, zero bool) (read, props []string, err error) {
	if name == "" {
		return nil, nil, nil
	}
	l, ok := layouts[name]
	if !ok || l.Frame {
		return nil, nil, fmt.Errorf("no out layout %s", name)
	}
	read = []string{"const out = io.out();"}
	for i, f := range l.Fields {
		slot := "out[" + strconv.Itoa(i) + "]!"
		if f.Frame == "" {
			props = append(props, f.TS+": "+map[bool]string{true: "0", false: slot}[zero])
			continue
		}
		fl, ok := layouts[f.Frame]
		if !ok || !fl.Frame {
			return nil, nil, fmt.Errorf("%s.%s: no frame %s", name, f.Name, f.Frame)
		}
		local := lowerCamel(f.Frame) + "Frame"
		read = append(read, "const "+local+" = read"+f.Frame+"(io.text("+slot+"));")
		for _, ff := range fl.Fields {
			props = append(props, ff.TS+": "+map[bool]string{true: `""`, false: local + "." + ff.TS}[zero])
		}
	}
	return read, props, nil
}

// flagEnum is the Flag enum of Enums.
func flagEnum() Enum {
	for _, e := range Enums {
		if e.Name == "Flag" {
			return e
		}
	}
	panic("abi: no Flag enum")
}
