//go:build !(js && wasm)

// The edge is its own module: it builds on the product's public packages,
// never on its internal/ ones, which carry no compatibility promise across
// modules (Go lets it compile here only through edge/go.mod's replace).
package edge_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestNoInternalPackageOfTheProduct(t *testing.T) {
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		cmd := exec.Command("go", "list", "-deps", "-test", "./...")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %v: %v", env, err)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if strings.HasPrefix(pkg, "github.com/gatewaycircuit/gatewaycircuit/internal/") {
				t.Errorf("%v: the edge depends on %s", env, pkg)
			}
		}
	}
}
