//go:build !(js && wasm)

package abi

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite js/src/abi.gen.ts")

const generated = "../../js/src/abi.gen.ts"

// The TypeScript side of the boundary is generated; a stale file fails here.
func TestGeneratedTypeScript(t *testing.T) {
	want := TypeScript()
	if *update {
		if err := os.WriteFile(generated, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run go generate ./internal/abi", generated)
	}
}

// Every //go:wasmexport in wasm/main.go is declared, with the same
// parameters and result, and every declared export exists.
func TestExportsMatchTheWasm(t *testing.T) {
	declared := map[string][]Param{}
	results := map[string]string{}
	for _, e := range Exports {
		declared[e.Name], results[e.Name] = e.Params, e.Result
	}
	matchDirectives(t, "../../wasm/main.go", "//go:wasmexport ", "abi.Exports", declared, results)
}

// Every //go:wasmimport of the storage adapter is declared in abi.Imports,
// in ImportModule, with the same parameters and result, and the other way.
func TestImportsMatchTheAdapter(t *testing.T) {
	declared := map[string][]Param{}
	results := map[string]string{}
	for _, e := range Imports {
		declared[ImportModule+" "+e.Name], results[ImportModule+" "+e.Name] = e.Params, e.Result
	}
	matchDirectives(t, "../jsbridge/storage.go", "//go:wasmimport ", "abi.Imports", declared, results)
}

// matchDirectives checks the functions of file marked with directive
// against the declared names, parameter types and results.
func matchDirectives(t *testing.T, file, directive, table string, declared map[string][]Param, results map[string]string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Doc == nil {
			continue
		}
		for _, c := range fn.Doc.List {
			name, ok := strings.CutPrefix(c.Text, directive)
			if !ok {
				continue
			}
			found[name] = true
			want, ok := declared[name]
			if !ok {
				t.Errorf("%s is in %s but not declared in %s", name, file, table)
				continue
			}
			var params []string
			for _, p := range fn.Type.Params.List {
				for range max(1, len(p.Names)) {
					params = append(params, wasmType(p.Type))
				}
			}
			var types []string
			for _, p := range want {
				types = append(types, p.Type)
			}
			if strings.Join(params, ",") != strings.Join(types, ",") {
				t.Errorf("%s: %s takes (%s), %s declares (%s)", name, file, strings.Join(params, ","), table, strings.Join(types, ","))
			}
			result := ""
			if fn.Type.Results != nil {
				result = wasmType(fn.Type.Results.List[0].Type)
			}
			if result != results[name] {
				t.Errorf("%s: %s returns %q, %s declares %q", name, file, result, table, results[name])
			}
		}
	}
	for name := range declared {
		if !found[name] {
			t.Errorf("%s is declared in %s but %s has no such function", name, table, file)
		}
	}
}

func wasmType(x ast.Expr) string {
	if sel, ok := x.(*ast.SelectorExpr); ok && sel.Sel.Name == "Pointer" {
		return "i32" // unsafe.Pointer: an address in Go's memory
	}
	switch id, _ := x.(*ast.Ident); {
	case id == nil:
		return "?"
	case id.Name == "float64":
		return "f64"
	case id.Name == "int32":
		return "i32"
	default:
		return id.Name
	}
}

// Names and values are unique within each enum, and the out slots fit.
func TestEnumsAreWellFormed(t *testing.T) {
	for _, e := range Enums {
		names := map[string]bool{}
		for _, v := range e.Values {
			if names[v.Name] {
				t.Errorf("%s.%s twice", e.Name, v.Name)
			}
			names[v.Name] = true
			if e.Name == "Slot" && (v.Value < 0 || v.Value >= OutLen) {
				t.Errorf("Slot.%s = %d is outside out", v.Name, v.Value)
			}
		}
	}
	if len(Metrics()) == 0 {
		t.Fatal("no metrics")
	}
}
