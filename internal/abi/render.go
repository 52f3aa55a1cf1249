//go:build !(js && wasm)

package abi

import (
	"strconv"
	"strings"
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
	lines, err := Lines()
	if err != nil {
		return "", err
	}
	if err := tsLines(w, lines); err != nil {
		return "", err
	}
	w()
	w("/** gc_metric's counters, in order. */")
	var names []string
	for _, m := range Metrics() {
		names = append(names, strconv.Quote(m))
	}
	w("export const METRICS = [", strings.Join(names, ", "), "] as const;")
	return b.String(), nil
}
