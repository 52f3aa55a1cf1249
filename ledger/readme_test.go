package ledger_test

import (
	"os"
	"strings"
	"testing"
)

// The README's example is example/main.go, which go vet and go build
// compile: the two must not drift apart.
func TestReadmeExampleIsExampleMain(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example/main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Exactly-once on your Go server")
	_, block, ok2 := strings.Cut(section, "```go\n")
	code, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`README.md has no "## Exactly-once on your Go server" section with a go block`)
	}
	if code != string(example) {
		t.Fatalf("README.md's example differs from example/main.go:\n%s", code)
	}
}
