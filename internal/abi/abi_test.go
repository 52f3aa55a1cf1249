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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../wasm/main.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]Export{}
	for _, e := range Exports {
		declared[e.Name] = e
	}
	found := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Doc == nil {
			continue
		}
		for _, c := range fn.Doc.List {
			name, ok := strings.CutPrefix(c.Text, "//go:wasmexport ")
			if !ok {
				continue
			}
			found[name] = true
			e, ok := declared[name]
			if !ok {
				t.Errorf("%s is exported by wasm/main.go but not declared in abi.Exports", name)
				continue
			}
			var params []string
			for _, p := range fn.Type.Params.List {
				for range max(1, len(p.Names)) {
					params = append(params, wasmType(p.Type))
				}
			}
			var want []string
			for _, p := range e.Params {
				want = append(want, p.Type)
			}
			if strings.Join(params, ",") != strings.Join(want, ",") {
				t.Errorf("%s: wasm/main.go takes (%s), abi declares (%s)", name, strings.Join(params, ","), strings.Join(want, ","))
			}
			result := ""
			if fn.Type.Results != nil {
				result = wasmType(fn.Type.Results.List[0].Type)
			}
			if result != e.Result {
				t.Errorf("%s: wasm/main.go returns %q, abi declares %q", name, result, e.Result)
			}
		}
	}
	for _, e := range Exports {
		if !found[e.Name] {
			t.Errorf("%s is declared in abi.Exports but wasm/main.go does not export it", e.Name)
		}
	}
}

func wasmType(x ast.Expr) string {
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
