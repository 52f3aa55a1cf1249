//go:build !(js && wasm)

package abi

import (
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/internal/guard"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/policy/line"
)

// TypeScript renders js/src/abi.gen.ts.
func TypeScript() (string, error) {
	layouts, err := Layouts()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	w("// Code generated from internal/abi (go generate ./internal/abi). DO NOT EDIT.")
	w("// The whole Go↔JS interface of the wasm: see internal/abi for what each name means.")
	w()
	w("/** The wasm's exports (wasm/main.go). */")
	w("export interface Exports {")
	w("  mem: WebAssembly.Memory;")
	for _, e := range Exports {
		var ps []string
		for _, p := range e.Params {
			ps = append(ps, p.Name+": number")
		}
		ret := "number"
		if e.Result == "" {
			ret = "void"
		}
		w("  /** ", e.Doc, " */")
		w("  ", e.Name, "(", strings.Join(ps, ", "), "): ", ret, ";")
	}
	w("}")
	w()
	w("/** The import module the glue gives the wasm (internal/jsbridge). */")
	w("export const IMPORT_MODULE = ", strconv.Quote(ImportModule), ";")
	w()
	w("/** The functions of IMPORT_MODULE; addresses are in Go's memory. */")
	w("export interface Imports {")
	for _, e := range Imports {
		var ps []string
		for _, p := range e.Params {
			ps = append(ps, p.Name+": number")
		}
		w("  /** ", e.Doc, " */")
		w("  ", e.Name, "(", strings.Join(ps, ", "), "): number;")
	}
	w("}")
	for _, e := range Enums {
		w()
		w("/** ", e.Doc, " */")
		w("export const enum ", e.Name, " {")
		for _, v := range e.Values {
			doc := ""
			if v.Doc != "" {
				doc = " // " + v.Doc
			}
			w("  ", v.Name, " = ", strconv.FormatInt(v.Value, 10), ",", doc)
		}
		w("}")
	}
	tsLayouts(w, layouts)
	if err := tsCalls(w, layouts); err != nil {
		return "", err
	}
	lines, err := Lines()
	if err != nil {
		return "", err
	}
	if err := tsLines(w, lines); err != nil {
		return "", err
	}
	runs, err := defaultUneventful()
	if err != nil {
		return "", err
	}
	w()
	w("/** The quiet-status table gc_configure writes for the default options (guard.Uneventful), as runs [first, last] of the statuses whose answer changes nothing: for fakes of the engine. */")
	w("export const DEFAULT_UNEVENTFUL: readonly (readonly [number, number])[] = [", strings.Join(runs, ", "), "];")
	return b.String(), nil
}

// defaultUneventful is QuietStatuses for a guard with the default options
// (a scope is required; which does not matter), as runs "[first, last]" of
// the statuses marked 1.
func defaultUneventful() ([]string, error) {
	p, _, _ := guard.ParseAttributes(string(line.AppendOption(nil, line.Option{Name: "scope", Value: "https://app.test/"})))
	g, err := guard.New(p, store.NewMemory())
	if err != nil {
		return nil, err
	}
	t := QuietStatuses(g.Uneventful)
	var runs []string
	for i := 0; i < len(t); i++ {
		if t[i] == 0 {
			continue
		}
		first := i
		for i+1 < len(t) && t[i+1] == 1 {
			i++
		}
		runs = append(runs, "["+strconv.Itoa(first+StatusOpaque)+", "+strconv.Itoa(i+StatusOpaque)+"]")
	}
	return runs, nil
}
