//go:build !(js && wasm)

package abi

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/metrics"
)

var update = flag.Bool("update", false, "rewrite js/src/abi.gen.ts, js/src/metrics.gen.ts, layout.gen.go and line/line.gen.go")

// Both sides of the boundary are generated; a stale file fails here.
func TestGeneratedTypeScript(t *testing.T) {
	layouts, err := Layouts()
	if err != nil {
		t.Fatal(err)
	}
	lines, err := Lines()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := TypeScript()
	if err != nil {
		t.Fatal(err)
	}
	counters, err := MetricsTypeScript()
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"../../js/src/abi.gen.ts":       ts,
		"../../js/src/metrics.gen.ts":   counters,
		"layout.gen.go":                 GoLayouts(layouts),
		"../../policy/line/line.gen.go": GoLines(lines),
	} {
		if *update {
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is stale: run go generate ./internal/abi", file)
		}
	}
}

// A slot's index and a frame field's place come from field order: each
// layout's fields are distinct, and a frame round-trips through the
// generated Go reader and writer.
func TestLayoutsAreWellFormed(t *testing.T) {
	layouts, err := Layouts()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layouts {
		seen := map[string]bool{}
		for _, f := range l.Fields {
			if seen[f.TS] {
				t.Errorf("%s.%s twice (as %s)", l.Name, f.Name, f.TS)
			}
			seen[f.TS] = true
		}
		if !l.Frame && len(l.Fields) > OutLen {
			t.Errorf("%s has %d slots, out has %d", l.Name, len(l.Fields), OutLen)
		}
	}
	r := Request{Method: "GET", URL: "http://app.test/a", Headers: "accept: x\n:mode: cors\n"}
	if got := ReadRequest(WriteRequest(&r)); got != r {
		t.Errorf("Request round trip: %+v", got)
	}
	k := Key{Operation: "POST http://app.test/b", Key: "k1", Header: "h1"}
	if got := ReadKey(WriteKey(&k)); got != k {
		t.Errorf("Key round trip: %+v", got)
	}
	if got := ReadAnswer(""); got != (Answer{}) {
		t.Errorf("an empty Answer frame: %+v", got)
	}
}

// Neither side lays out out or a frame by hand: they go through the
// generated writers and readers. The shim's readers and writers of the line
// frames (config.ts: Attributes and Options; storage.ts: Pauses) split no
// line and write no newline; the Go side's go through package line.
func TestNoHandWrittenLayouts(t *testing.T) {
	lineFormat := regexp.MustCompile(`\\n|\\r|"="|"!"|"retry-after`)
	for file, bad := range map[string]*regexp.Regexp{
		"../../wasm/main.go":               regexp.MustCompile(`out\[[^0]|out\[0\]\s*=|strings\.(Cut|Split)|"!"`),
		"../../js/src/engine.ts":           regexp.MustCompile(`out\[|\\n|\.split\(|indexOf\("\\n"|Flag\.|\b(read|write)[A-Z]\w*\(`),
		"../../js/src/config.ts":           lineFormat,
		"../../js/src/storage.ts":          lineFormat,
		"../guard/config.go":               regexp.MustCompile(`strings\.Cut\(|"="`),
		"../../policy/cooldown/persist.go": regexp.MustCompile(`strings\.Cut\(|strconv\.|' '`),
	} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if code, _, _ := strings.Cut(line, "//"); bad.MatchString(code) {
				t.Errorf("%s:%d lays out a slot or a frame by hand: %s", file, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// The typed calls are generated (bindCalls): engine.ts calls no export
// that Calls declares, and every export that takes a frame has a Call that
// writes it.
func TestCallsAreGenerated(t *testing.T) {
	src, err := os.ReadFile("../../js/src/engine.ts")
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{}
	for _, c := range Calls {
		if called[c.Export] {
			t.Errorf("%s has two Calls", c.Export)
		}
		called[c.Export] = true
		if strings.Contains(string(src), "ex."+c.Export+"(") {
			t.Errorf("engine.ts calls %s by hand; Calls declares it (bindCalls.%s)", c.Export, c.Method)
		}
	}
	for _, e := range Exports {
		if slices.ContainsFunc(e.Params, func(p Param) bool { return p.Name == "len" }) && !called[e.Name] {
			t.Errorf("%s takes a frame, but no Call writes it", e.Name)
		}
	}
}

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{"CopyID": "copyId", "FinalURL": "finalUrl", "URL": "url", "UntilMs": "untilMs", "Method": "method", "URLPath": "urlPath"} {
		if got := lowerCamel(in); got != want {
			t.Errorf("lowerCamel(%q) = %q, want %q", in, got, want)
		}
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

// Names and values are unique within each enum.
func TestEnumsAreWellFormed(t *testing.T) {
	for _, e := range Enums {
		names := map[string]bool{}
		for _, v := range e.Values {
			if names[v.Name] {
				t.Errorf("%s.%s twice", e.Name, v.Name)
			}
			names[v.Name] = true
		}
	}
}

// Every counter Go keeps reaches metrics(): each is declared in Counters
// (those the shim counts instead too), once, and one Go counts is Go's.
func TestEveryCounterIsDeclared(t *testing.T) {
	declared := map[string]Counted{}
	for _, c := range Counters {
		if _, twice := declared[c.Name]; twice || c.Doc == "" {
			t.Errorf("%s: declared twice, or without a doc", c.Name)
		}
		declared[c.Name] = c.By
	}
	for _, c := range metrics.Counters() {
		if _, ok := declared[c.String()]; !ok {
			t.Errorf("Go counts %s (metrics.Counter %d), but Counters does not declare it: metrics() would leave it out", c, c)
		}
	}
	for _, c := range Counters {
		if _, ok := metricIndex(c.Name); c.By != ByJS && !ok {
			t.Errorf("%s is counted by Go, but package metrics has no such counter", c.Name)
		}
	}
}

// The API reference's table of counters lists the declared ones (in its own order).
func TestAPIDocListsTheCounters(t *testing.T) {
	readme, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n### Metrics\n")
	section, _, _ = strings.Cut(section, "\n#")
	var listed, want []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(\\w+)` \\|").FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	for _, c := range Counters {
		want = append(want, c.Name)
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("docs/api.md's Metrics table lists\n%v\nCounters declares\n%v", listed, want)
	}
}
