//go:build !(js && wasm)

package abi

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"unicode"
)

// Layout is one struct of layout.go: an out layout or a frame.
type Layout struct {
	Name   string
	Doc    string
	Frame  bool // string fields; else float64 slots in out
	Fields []Field
}

// Field is one slot of an out layout, or one field of a frame.
type Field struct {
	Name string // as in Go
	TS   string // the TypeScript property: lowerCamelCase
	Doc  string
	// Frame (an out slot tagged frame:"X"): the slot is the length of an X
	// frame in the buffer.
	Frame string
}

// Layouts reads layout.go, the declaration of every out layout and frame.
func Layouts() ([]Layout, error) {
	ds, err := parseStructs("layout.go")
	if err != nil {
		return nil, err
	}
	var ls []Layout
	for _, d := range ds {
		l := Layout{Name: d.name, Doc: d.doc}
		kinds := map[string]bool{}
		for _, fl := range d.fields {
			typ, _ := fl.Type.(*ast.Ident)
			if typ == nil || (typ.Name != "string" && typ.Name != "float64") {
				return nil, fmt.Errorf("layout.go: %s: fields are float64 (out) or string (frame)", l.Name)
			}
			kinds[typ.Name] = true
			doc := oneLine(fl.Doc.Text() + fl.Comment.Text())
			frame := ""
			if fl.Tag != nil {
				tag, _ := strconv.Unquote(fl.Tag.Value)
				frame = reflect.StructTag(tag).Get("frame")
			}
			for _, n := range fl.Names {
				l.Fields = append(l.Fields, Field{Name: n.Name, TS: lowerCamel(n.Name), Doc: doc, Frame: frame})
			}
		}
		if len(kinds) != 1 || len(l.Fields) == 0 {
			return nil, fmt.Errorf("layout.go: %s mixes float64 and string fields, or has none", l.Name)
		}
		l.Frame = kinds["string"]
		ls = append(ls, l)
	}
	return ls, nil
}

// declared is one struct type of a file of declarations.
type declared struct {
	name, doc string
	fields    []*ast.Field
}

// parseStructs reads the struct types of a file of declarations, named
// from this package's folder; a type that is not a struct is an error.
func parseStructs(name string) ([]declared, error) {
	_, self, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(self), name)
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var ds []declared
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return nil, fmt.Errorf("%s: %s is not a struct", name, ts.Name.Name)
			}
			ds = append(ds, declared{ts.Name.Name, oneLine(gd.Doc.Text()), st.Fields.List})
		}
	}
	return ds, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// lowerCamel turns a Go name into a TypeScript property: CopyID → copyId,
// FinalURL → finalUrl, URL → url.
func lowerCamel(name string) string {
	var words []string
	rs := []rune(name)
	for i := 0; i < len(rs); {
		j := i + 1
		if unicode.IsUpper(rs[i]) && j < len(rs) && unicode.IsUpper(rs[j]) { // an initialism
			for j < len(rs) && unicode.IsUpper(rs[j]) && (j+1 == len(rs) || unicode.IsUpper(rs[j+1])) {
				j++
			}
			if j+1 == len(rs) && unicode.IsUpper(rs[j]) {
				j++
			}
		} else {
			for j < len(rs) && !unicode.IsUpper(rs[j]) {
				j++
			}
		}
		words = append(words, string(rs[i:j]))
		i = j
	}
	for i, w := range words {
		w = strings.ToLower(w)
		if i > 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		words[i] = w
	}
	return strings.Join(words, "")
}

// outLen is the number of slots of the longest out layout.
func outLen(ls []Layout) int {
	n := 0
	for _, l := range ls {
		if !l.Frame {
			n = max(n, len(l.Fields))
		}
	}
	return n
}

// GoLayouts renders layout.gen.go: OutLen, and the Go writers and readers.
func GoLayouts(ls []Layout) string {
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	w("// Code generated from layout.go (go generate ./internal/abi). DO NOT EDIT.")
	w()
	w("package abi")
	w()
	w(`import "strings"`)
	w()
	w("// OutLen is the number of float64 slots in out: the longest out layout.")
	w("const OutLen = ", strconv.Itoa(outLen(ls)))
	for _, l := range ls {
		w()
		if !l.Frame {
			w("// Put", l.Name, " writes v into out, one slot per field in field order.")
			w("func Put", l.Name, "(out *[OutLen]float64, v *", l.Name, ") {")
			for i, f := range l.Fields {
				w("\tout[", strconv.Itoa(i), "] = v.", f.Name)
			}
			w("}")
			continue
		}
		w("// Read", l.Name, " splits a ", l.Name, " frame; the strings share its memory.")
		w("func Read", l.Name, "(frame string) (v ", l.Name, ") {")
		for _, f := range l.Fields[:len(l.Fields)-1] {
			w("\tv.", f.Name, ", frame, _ = strings.Cut(frame, \"\\n\")")
		}
		w("\tv.", l.Fields[len(l.Fields)-1].Name, " = frame")
		w("\treturn v")
		w("}")
		w()
		w("// Write", l.Name, " joins a ", l.Name, " frame.")
		w("func Write", l.Name, "(v *", l.Name, ") string {")
		var parts []string
		for _, f := range l.Fields {
			parts = append(parts, "v."+f.Name)
		}
		w("\treturn ", strings.Join(parts, ` + "\n" + `))
		w("}")
	}
	return b.String()
}

// tsLayouts renders the TypeScript interfaces, readers and writers.
func tsLayouts(w func(...string), ls []Layout) {
	w()
	w("/** Splits s at its first newline (the rest is empty when there is none). */")
	w("function cut(s: string): [string, string] {")
	w(`  const i = s.indexOf("\n");`)
	w("  return i < 0 ? [s, \"\"] : [s.slice(0, i), s.slice(i + 1)];")
	w("}")
	for _, l := range ls {
		w()
		w("/** ", l.Doc, " */")
		w("export interface ", l.Name, " {")
		for _, f := range l.Fields {
			if f.Doc != "" {
				w("  /** ", f.Doc, " */")
			}
			w("  ", f.TS, ": ", map[bool]string{true: "string", false: "number"}[l.Frame], ";")
		}
		w("}")
		if !l.Frame {
			continue // read by the typed calls (tsCalls)
		}
		w()
		var parts []string
		for _, f := range l.Fields {
			parts = append(parts, "${v."+f.TS+"}")
		}
		w("/** Joins a ", l.Name, " frame. */")
		w("export function write", l.Name, "(v: ", l.Name, "): string {")
		w("  return `", strings.Join(parts, `\n`), "`;")
		w("}")
		w()
		w("/** Splits a ", l.Name, " frame. */")
		w("export function read", l.Name, "(s: string): ", l.Name, " {")
		var names []string
		for _, f := range l.Fields[:len(l.Fields)-1] {
			w("  let ", f.TS, ": string;")
			w("  [", f.TS, ", s] = cut(s);")
			names = append(names, f.TS)
		}
		last := l.Fields[len(l.Fields)-1].TS
		if last == "s" {
			panic("abi: a frame field named s")
		}
		names = append(names, last+": s")
		w("  return { ", strings.Join(names, ", "), " };")
		w("}")
	}
}
