//go:build !(js && wasm)

package guard

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite js/src/policy.gen.ts")

const policyFile = "../../js/src/policy.gen.ts"

// The shim's copy of the policy is generated; a stale file fails here.
func TestPolicyTypeScript(t *testing.T) {
	want := PolicyTypeScript()
	if *update {
		if err := os.WriteFile(policyFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run go generate ./internal/guard", policyFile)
	}
}

// Every setting says what it does in the shim's typed options.
func TestEverySettingHasADoc(t *testing.T) {
	for _, s := range settings {
		if optionDocs[s.name] == "" {
			t.Errorf("optionDocs has nothing for %s", s.name)
		}
	}
}
