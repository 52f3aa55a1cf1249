//go:build !(js && wasm)

package abi

import (
	"fmt"
	"go/ast"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Line is one kind of line of a line frame: a struct of package line.
type Line struct {
	Name   string
	Doc    string
	Fields []LineField
}

// LineField is one field of a line: what starts it (Before), what ends it
// (After; empty for the last field, which is the rest of the line), and
// whether it is a whole number.
type LineField struct {
	Field
	Before, After string
	Int           bool
}

// Lines reads line/line.go, the declaration of every kind of line.
func Lines() ([]Line, error) {
	ds, err := parseStructs("../../policy/line/line.go")
	if err != nil {
		return nil, err
	}
	var ls []Line
	for _, d := range ds {
		l := Line{Name: d.name, Doc: d.doc}
		for _, fl := range d.fields {
			typ, _ := fl.Type.(*ast.Ident)
			if typ == nil || (typ.Name != "string" && typ.Name != "int64") || len(fl.Names) != 1 {
				return nil, fmt.Errorf("line.go: %s: one string or int64 field per line", l.Name)
			}
			var tag reflect.StructTag
			if fl.Tag != nil {
				raw, _ := strconv.Unquote(fl.Tag.Value)
				tag = reflect.StructTag(raw)
			}
			n := fl.Names[0].Name
			l.Fields = append(l.Fields, LineField{
				Field:  Field{Name: n, TS: lowerCamel(n), Doc: oneLine(fl.Doc.Text() + fl.Comment.Text())},
				Before: tag.Get("before"), After: tag.Get("after"), Int: typ.Name == "int64",
			})
		}
		for i, f := range l.Fields {
			if (f.After == "") != (i == len(l.Fields)-1) {
				return nil, fmt.Errorf("line.go: %s.%s: every field but the last ends with after:\"…\"", l.Name, f.Name)
			}
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// GoLines renders line/line.gen.go: a parser and a writer per kind
// of line.
func GoLines(ls []Line) string {
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	w("// Code generated from line.go (go generate ./line). DO NOT EDIT.")
	w()
	w("package line")
	w()
	w("import (")
	w("\t\"strconv\"")
	w("\t\"strings\"")
	w()
	w("\t\"github.com/gatewaycircuit/gatewaycircuit/policy/text\"")
	w(")")
	for _, l := range ls {
		w()
		w("// Parse", l.Name, " reads ", article(l.Name), " ", l.Name, " line (without its \"\\n\"); ok is false when it is not one.")
		w("func Parse", l.Name, "(line string) (v ", l.Name, ", ok bool) {")
		if hasInt(l) {
			w("\tvar f string")
		}
		for i, f := range l.Fields {
			if f.Before != "" {
				w("\tif line, ok = strings.CutPrefix(line, ", strconv.Quote(f.Before), "); !ok {")
				w("\t\treturn v, false")
				w("\t}")
			}
			last := i == len(l.Fields)-1
			dst := "v." + f.Name
			if f.Int {
				dst = "f"
			}
			if last {
				w("\t", dst, " = line")
			} else {
				w("\tif ", dst, ", line, ok = strings.Cut(line, ", strconv.Quote(f.After), "); !ok {")
				w("\t\treturn v, false")
				w("\t}")
			}
			if f.Int {
				w("\tif v.", f.Name, ", ok = text.Int(f); !ok {")
				w("\t\treturn v, false")
				w("\t}")
			}
		}
		w("\treturn v, true")
		w("}")
		w()
		w("// Append", l.Name, " appends v to b as ", article(l.Name), " ", l.Name, " line, \"\\n\" included.")
		w("func Append", l.Name, "(b []byte, v ", l.Name, ") []byte {")
		for _, f := range l.Fields {
			if f.Before != "" {
				w("\tb = append(b, ", strconv.Quote(f.Before), "...)")
			}
			if f.Int {
				w("\tb = strconv.AppendInt(b, v.", f.Name, ", 10)")
			} else {
				w("\tb = appendFlat(b, v.", f.Name, ")")
			}
			if f.After != "" {
				w("\tb = append(b, ", strconv.Quote(f.After), "...)")
			}
		}
		w("\treturn append(b, '\\n')")
		w("}")
	}
	return b.String()
}

func hasInt(l Line) bool {
	for _, f := range l.Fields {
		if f.Int {
			return true
		}
	}
	return false
}

// tsLines renders the TypeScript side of the line frames: each kind of line
// as an interface and a field table, and each frame's reader and writer,
// through one table-driven parser (the tag's file carries the pauses' reader:
// a table is smaller than a function per kind).
func tsLines(w func(...string), ls []Line) error {
	byName := map[string]Line{}
	for _, l := range ls {
		byName[l.Name] = l
	}
	w()
	w("/** A whole number as Go's text.Int reads it (an optional sign, decimal digits, within int64), or null. */")
	w("export function wholeNumber(s: string): bigint | null {")
	w("  if (!/^[+-]?\\d+$/.test(s)) return null;")
	w("  const n = BigInt(s);")
	w("  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : null;")
	w("}")
	w()
	w("/** A field of a line: its property, what starts it, what ends it (\"\": the rest of the line), and whether it is a whole number. */")
	w("type LineField = readonly [name: string, before: string, after: string, int: boolean];")
	w()
	w("/** Writes a line by its fields, \"\\n\" included; a \"\\r\" or \"\\n\" inside a field becomes a space. */")
	w("function formatLine(fields: readonly LineField[], v: object): string {")
	w("  let s = \"\";")
	w("  for (const [name, before, after] of fields) {")
	w("    s += before + String((v as Record<string, unknown>)[name]).replace(/[\\r\\n]/g, \" \") + after;")
	w("  }")
	w("  return s + \"\\n\";")
	w("}")
	for _, l := range ls {
		w()
		w("/** ", l.Doc, " */")
		w("export interface ", l.Name, " {")
		var cells []string
		for _, f := range l.Fields {
			if f.Doc != "" {
				w("  /** ", f.Doc, " */")
			}
			w("  ", f.TS, ": ", map[bool]string{true: "number", false: "string"}[f.Int], ";")
			cells = append(cells, "["+strconv.Quote(f.TS)+", "+strconv.Quote(f.Before)+", "+strconv.Quote(f.After)+", "+strconv.FormatBool(f.Int)+"]")
		}
		w("}")
		w()
		w("const ", lowerCamel(l.Name), "Line: readonly LineField[] = [", strings.Join(cells, ", "), "];")
		w()
		tsParser(w, l)
	}
	for _, fr := range LineFrames {
		w()
		var kinds []Line
		for _, n := range fr.Lines {
			l, ok := byName[n]
			if !ok {
				return fmt.Errorf("abi.LineFrames: %s holds %s lines, which package line does not declare", fr.Name, n)
			}
			kinds = append(kinds, l)
		}
		if len(kinds) == 1 {
			l := kinds[0]
			w("/** Reads ", article(fr.Name), " ", fr.Name, " frame: ", fr.Doc, " Lines that are not ", l.Name, " lines are skipped. */")
			w("export function read", fr.Name, "Frame(s: string): ", l.Name, "[] {")
			w("  return s.split(\"\\n\").flatMap((line) => parse", l.Name, "(line) ?? []);")
			w("}")
			w()
			w("/** Writes ", article(fr.Name), " ", fr.Name, " frame. */")
			w("export function write", fr.Name, "Frame(lines: readonly ", l.Name, "[]): string {")
			w("  return lines.map((v) => formatLine(", lowerCamel(l.Name), "Line, v)).join(\"\");")
			w("}")
			continue
		}
		var union []string
		for _, l := range kinds {
			union = append(union, "{ "+lowerCamel(l.Name)+": "+l.Name+" }")
		}
		w("/** A line of ", article(fr.Name), " ", fr.Name, " frame, by its kind. */")
		w("export type ", fr.Name, "Line = ", strings.Join(union, " | "), ";")
		w()
		w("/** Reads ", article(fr.Name), " ", fr.Name, " frame, in order: ", fr.Doc, " A line of no kind is skipped. */")
		w("export function read", fr.Name, "Frame(s: string): ", fr.Name, "Line[] {")
		w("  const lines: ", fr.Name, "Line[] = [];")
		w("  for (const line of s.split(\"\\n\")) {")
		for i, l := range kinds {
			k := lowerCamel(l.Name)
			w("    const ", k, " = parse", l.Name, "(line);")
			w("    if (", k, ") {")
			w("      lines.push({ ", k, " });")
			if i < len(kinds)-1 {
				w("      continue;")
			}
			w("    }")
		}
		w("  }")
		w("  return lines;")
		w("}")
		w()
		w("/** Writes ", article(fr.Name), " ", fr.Name, " frame. */")
		w("export function write", fr.Name, "Frame(lines: readonly ", fr.Name, "Line[]): string {")
		w("  let s = \"\";")
		w("  for (const l of lines) {")
		for i, l := range kinds {
			k := lowerCamel(l.Name)
			cond := "if (\"" + k + "\" in l) "
			if i == len(kinds)-1 {
				cond = ""
			}
			w("    ", map[bool]string{true: "", false: "else "}[i == 0], cond, "s += formatLine(", lowerCamel(l.Name), "Line, l.", k, ");")
		}
		w("  }")
		w("  return s;")
		w("}")
	}
	return nil
}

// article is "an" before a vowel, else "a".
func article(word string) string {
	if strings.ContainsRune("AEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// tsParser renders parseX for a kind of line: one regular expression, a
// group per field (a field that ends at a separator ends at its first one:
// a lazy group), whole numbers checked as text.Int checks them.
func tsParser(w func(...string), l Line) {
	re := "^"
	for _, f := range l.Fields {
		re += regexp.QuoteMeta(f.Before)
		switch {
		case f.Int:
			re += `([+-]?\d+)`
		case f.After != "":
			re += "(.*?)"
		default:
			re += "(.*)"
		}
		re += regexp.QuoteMeta(f.After)
	}
	re = strings.ReplaceAll(re+"$", "/", `\/`)
	w("/** Reads ", article(l.Name), " ", l.Name, " line, or null when it is not one. */")
	w("export function parse", l.Name, "(line: string): ", l.Name, " | null {")
	w("  const m = /", re, "/s.exec(line);")
	var checks, props []string
	for i, f := range l.Fields {
		g := "m[" + strconv.Itoa(i+1) + "]!"
		if f.Int {
			w("  const ", f.TS, " = m && wholeNumber(", g, ");")
			checks = append(checks, f.TS+" !== null")
			props = append(props, f.TS+": Number("+f.TS+")")
		} else {
			props = append(props, f.TS+": "+g)
		}
	}
	cond := strings.Join(append([]string{"m"}, checks...), " && ")
	w("  return ", cond, " ? { ", strings.Join(props, ", "), " } : null;")
	w("}")
}
