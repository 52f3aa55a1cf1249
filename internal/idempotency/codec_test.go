package idempotency

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

// FuzzDecode: whatever sessionStorage holds, decode keeps only valid
// entries, and what it keeps survives encode and decode unchanged.
func FuzzDecode(f *testing.F) {
	f.Add("f\t1700000000000\t1700000000000\tj:1\tk1\tPOST /api/orders\n")
	f.Add("p\t1\t2\tb:x\ta \"b\"\tPUT /주문\nd\t1\t1\tj:1\tk1\tPOST /a\nd\t1\t1\tj:2\tk1\tPOST /a\n")
	f.Add("forgot\t1700000000000\nd\t1\t1\tj:1\tk1\tPOST /a?secret=1#x\n")
	f.Add("garbage\n\n\t\t\t\t\t\n")
	f.Fuzz(func(t *testing.T, raw string) {
		entries, forgotAt := decode(raw)
		for _, e := range entries {
			if checkEntry(e.Operation, e.Key, e.Fingerprint) != nil || e.State < Pending || e.State > Failed || e.UpdatedAt < e.CreatedAt {
				t.Fatalf("decode kept an invalid entry %+v", e)
			}
			if tail := strings.IndexAny(e.Operation, "?#"); tail >= 0 && !strings.HasPrefix(e.Operation[tail:], "?~") {
				t.Fatalf("decode kept a query string or fragment: %q", e.Operation)
			}
		}
		again, forgotAgain := decode(encode(entries, forgotAt, 0))
		if !reflect.DeepEqual(again, entries) || (forgotAt > 0 && forgotAgain != forgotAt) {
			t.Fatalf("round trip changed %+v into %+v", entries, again)
		}
	})
}

// poisoned is a stored value of n lines that all name the same few actions
// (another script on the origin, or a bug, wrote it): the shape that made
// the first decoder quadratic and froze a page load for 10 s at 40k lines.
func poisoned(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("f\t1700000000000\t1700000000000\tj:1\tk")
		b.WriteString(strconv.Itoa(i % 7))
		b.WriteString("\tPOST https://app.test/api/orders\n")
	}
	return b.String()
}

// TestDecodeIsLinear: the work per line must not grow with the number of
// lines. Counted in allocations, not time (no timed tests): the quadratic
// decoder copied the entries for every repeated line.
func TestDecodeIsLinear(t *testing.T) {
	perLine := func(n int) float64 {
		raw := poisoned(n)
		return testing.AllocsPerRun(1, func() {
			if entries, _ := decode(raw); len(entries) != 7 {
				t.Fatalf("decoded %d entries, want 7", len(entries))
			}
		}) / float64(n)
	}
	small, large := perLine(1_000), perLine(40_000)
	if large > 2*small+1 {
		t.Fatalf("allocations per line grow with the input: %.2f at 1k lines, %.2f at 40k", small, large)
	}
}

// BenchmarkDecodePoisoned is the 40,000-line value of the regression.
func BenchmarkDecodePoisoned(b *testing.B) {
	raw := poisoned(40_000)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		decode(raw)
	}
}

// shuffled is n distinct actions stored in a shuffled order of creation.
func shuffled(n int) string {
	var b strings.Builder
	for i := range n {
		created := strconv.Itoa(1_700_000_000_000 + (i*7919)%n) // a permutation of n times
		b.WriteString("f\t" + created + "\t" + created + "\tj:1\tk" + strconv.Itoa(i) + "\tPOST https://app.test/api/orders\n")
	}
	return b.String()
}

// BenchmarkLoadShuffled is a page load over 40,000 stored actions in a
// shuffled order: linear, no sort.
func BenchmarkLoadShuffled(b *testing.B) {
	raw := shuffled(40_000)
	mem := store.NewMemory()
	for b.Loop() {
		_ = mem.Set(StorageKey, raw)
		l, _ := New(Policy{}, mem)
		l.Load(1_700_000_040_000)
	}
}

// TestLoadIsLinear: the whole page-load path (decode, merge, expiry, the
// bound) on distinct actions stored in a shuffled order of creation, the
// case a sort by insertion would have made quadratic again.
func TestLoadIsLinear(t *testing.T) {
	perLine := func(n int) float64 {
		mem := store.NewMemory()
		raw := shuffled(n)
		return testing.AllocsPerRun(1, func() {
			_ = mem.Set(StorageKey, raw)
			l, _ := New(Policy{}, mem)
			l.Load(1_700_000_000_000 + int64(n))
			if len(l.Entries()) != DefaultMaxEntries {
				t.Fatalf("kept %d entries", len(l.Entries()))
			}
		}) / float64(n)
	}
	small, large := perLine(1_000), perLine(40_000)
	if large > 2*small+1 {
		t.Fatalf("allocations per line grow with the input: %.2f at 1k lines, %.2f at 40k", small, large)
	}
}
