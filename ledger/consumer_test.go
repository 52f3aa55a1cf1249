package ledger_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README tells a server author, while the modules are unpublished, to
// require the ledger and replace it and the root module with a clone. A
// module outside this tree does exactly that and builds the README's example:
// a step missing from the README fails here.
func TestConsumerOutsideTheTreeBuildsTheReadmeExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## Exactly-once on your Go server")
	section, _, _ = strings.Cut(section, "\n## ")
	_, lines, ok := strings.Cut(section, "```text\n")
	lines, _, ok2 := strings.Cut(lines, "```")
	if !ok || !ok2 || !strings.Contains(lines, "replace ") {
		t.Fatal("README.md's ledger section has no ```text block with the require and replace lines")
	}
	clone, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.test/consumer\n\ngo 1.26\n\n" + strings.ReplaceAll(lines, "../gatewaycircuit", clone)
	example, err := os.ReadFile("example/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), example, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", os.DevNull, "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in a module outside the tree, as the README says:\n%s\n%s", strings.Join(args, " "), gomod, out)
		}
	}
}
