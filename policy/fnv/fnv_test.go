package fnv_test

import (
	"bytes"
	"encoding/binary"
	stdfnv "hash/fnv"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/fnv"
)

func FuzzAgreesWithHashFNV(f *testing.F) {
	for _, s := range []string{"", "a", "GET https://api.test/x?~", "\xff\x00", string(make([]byte, 300))} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h64 := stdfnv.New64a()
		h64.Write(b)
		if got, want := fnv.Sum64a(string(b)), h64.Sum64(); got != want {
			t.Fatalf("Sum64a(%q) = %x, hash/fnv: %x", b, got, want)
		}
		h128 := stdfnv.New128a()
		h128.Write(b)
		if got, want := fnv.Sum128a(b), h128.Sum(nil); !bytes.Equal(got[:], want) {
			t.Fatalf("Sum128a(%q) = %x, hash/fnv: %x", b, got, want)
		}
	})
}

// The published test vectors (draft-eastlake-fnv).
func TestVectors(t *testing.T) {
	if got := fnv.Sum64a("foobar"); got != 0x85944171f73967e8 {
		t.Errorf("Sum64a(foobar) = %x", got)
	}
	sum := fnv.Sum128a([]byte("foobar"))
	if hi, lo := binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:]); hi != 0x343e1662793c64bf || lo != 0x6f0d3597ba446f18 {
		t.Errorf("Sum128a(foobar) = %x", sum)
	}
}
