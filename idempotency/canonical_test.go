package idempotency_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

// TestCanonicalVectors checks the outputs of the JS reference (made with
// node, see testdata/gen_canonical_vectors.js).
func TestCanonicalVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/canonical_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []struct {
		Input     string  `json:"input"`
		Canonical *string `json:"canonical"` // null: not JSON
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	for _, v := range vectors {
		got, isJSON, err := idempotency.Canonical([]byte(v.Input), idempotency.Limits{})
		switch {
		case err != nil:
			t.Errorf("Canonical(%q): %v", v.Input, err)
		case v.Canonical == nil && (isJSON || string(got) != v.Input):
			t.Errorf("Canonical(%q) = %q, %v; want the bytes, not JSON", v.Input, got, isJSON)
		case v.Canonical != nil && (!isJSON || string(got) != *v.Canonical):
			t.Errorf("Canonical(%q) = %q, %v; want %q", v.Input, got, isJSON, *v.Canonical)
		}
	}
}

func TestCanonicalLimits(t *testing.T) {
	lim := idempotency.Limits{MaxBytes: 100, MaxDepth: 3}
	for _, c := range []struct {
		body string
		want error
	}{
		{`[[[1]]]`, nil},
		{`{"a":{"b":[1]}}`, nil},
		{`[[[[1]]]]`, idempotency.ErrTooDeep},
		{`{"a":{"b":{"c":{}}}}`, idempotency.ErrTooDeep},
		{`[[[[`, idempotency.ErrTooDeep}, // refused before it is known not to be JSON
		{strings.Repeat(" ", 101), idempotency.ErrTooLarge},
		{"[" + strings.Repeat("1,", 50) + "1]", idempotency.ErrTooLarge},
		{strings.Repeat("x", 100), nil},
	} {
		_, _, err := idempotency.Canonical([]byte(c.body), lim)
		if !errors.Is(err, c.want) {
			t.Errorf("Canonical(%.20q…) err = %v, want %v", c.body, err, c.want)
		}
	}
	_, _, err := idempotency.Canonical([]byte("[[[[1]]]]"), lim)
	var de *idempotency.DepthError
	if !errors.As(err, &de) || de.Limit != 3 {
		t.Errorf("err = %#v, want a *DepthError with Limit 3", err)
	}
	_, _, err = idempotency.Canonical(make([]byte, 101), lim)
	var se *idempotency.SizeError
	if !errors.As(err, &se) || se.Size != 101 || se.Limit != 100 {
		t.Errorf("err = %#v, want a *SizeError of 101 over 100", err)
	}
	// The default depth is deep enough for real bodies and bounded.
	deep := strings.Repeat("[", idempotency.DefaultMaxDepth) + strings.Repeat("]", idempotency.DefaultMaxDepth)
	if _, isJSON, err := idempotency.Canonical([]byte(deep), idempotency.Limits{}); err != nil || !isJSON {
		t.Errorf("depth %d: %v, %v", idempotency.DefaultMaxDepth, isJSON, err)
	}
	if _, _, err := idempotency.Canonical([]byte("["+deep+"]"), idempotency.Limits{}); !errors.Is(err, idempotency.ErrTooDeep) {
		t.Errorf("depth %d: err = %v", idempotency.DefaultMaxDepth+1, err)
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := idempotency.Fingerprint([]byte(`{"qty":2,"item":"tea"}`), idempotency.Limits{})
	b, _ := idempotency.Fingerprint([]byte("{\n  \"item\": \"tea\",\n  \"qty\": 2.0\n}"), idempotency.Limits{})
	c, _ := idempotency.Fingerprint([]byte(`{"qty":3,"item":"tea"}`), idempotency.Limits{})
	form, _ := idempotency.Fingerprint([]byte(`item=tea&qty=2`), idempotency.Limits{})
	if a != b || a == c || !strings.HasPrefix(a, "j:") || !strings.HasPrefix(form, "b:") || len(a) != 2+32 {
		t.Fatalf("fingerprints: %s %s %s %s", a, b, c, form)
	}
	if _, err := idempotency.Fingerprint(make([]byte, idempotency.DefaultMaxBodyBytes+1), idempotency.Limits{}); !errors.Is(err, idempotency.ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

// genValue makes a random JSON value as Go data: map, slice, string,
// float64, bool or nil.
func genValue(r *rand.Rand, depth int) any {
	k := r.IntN(8)
	if depth > 4 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return []float64{0, 1, -1, 0.1, 1e21, 1e-7, 123456.789, -2.5e-300, 9007199254740993}[r.IntN(9)] * float64(r.IntN(3)-1)
	case 3, 4:
		return genString(r)
	case 5:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = genValue(r, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for n := r.IntN(5); n > 0; n-- {
			m[genString(r)] = genValue(r, depth+1)
		}
		return m
	}
}

func genString(r *rand.Rand) string {
	alphabet := []string{"a", "b", "Z", "0", "10", "2", " ", "é", "한", "😀", "\uffff", "\"", "\\", "\n", "\u0001", "\u2028", "/"}
	var b strings.Builder
	for n := r.IntN(4); n > 0; n-- {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// writeJSON writes v with keys in a random order, random whitespace between
// tokens, and random (but equivalent) spellings of strings and numbers.
func writeJSON(r *rand.Rand, b *bytes.Buffer, v any) {
	ws := func() { b.WriteString([]string{"", "", " ", "\n\t", "\r\n  "}[r.IntN(5)]) }
	ws()
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		b.WriteString(strconv.FormatFloat(v, []byte{'g', 'e', 'f', 'E'}[r.IntN(4)], -1, 64))
	case string:
		b.WriteByte('"')
		for _, c := range v {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteRune(c)
			case c < 0x20 || r.IntN(4) == 0:
				for _, u := range utf16Units(c) {
					b.WriteString(`\u`)
					b.WriteString(strconv.FormatUint(uint64(0x10000+int(u)), 16)[1:])
				}
			default:
				b.WriteRune(c)
			}
		}
		b.WriteByte('"')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				ws()
				b.WriteByte(',')
			}
			writeJSON(r, b, e)
		}
		ws()
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(r, b, k)
			ws()
			b.WriteByte(':')
			writeJSON(r, b, v[k])
		}
		ws()
		b.WriteByte('}')
	}
	ws()
}

func utf16Units(c rune) []uint16 {
	if c < 0x10000 {
		return []uint16{uint16(c)}
	}
	c -= 0x10000
	return []uint16{uint16(0xD800 + c>>10), uint16(0xDC00 + c&0x3FF)}
}

// TestCanonicalProperties: two random spellings of one value (key order,
// whitespace, escapes, number forms) have one canonical form, which is its
// own canonical form and means the same value to encoding/json.
func TestCanonicalProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		v := genValue(r, 0)
		var a, b bytes.Buffer
		writeJSON(r, &a, v)
		writeJSON(r, &b, v)
		ca, okA, errA := idempotency.Canonical(a.Bytes(), idempotency.Limits{})
		cb, okB, errB := idempotency.Canonical(b.Bytes(), idempotency.Limits{})
		if errA != nil || errB != nil || !okA || !okB {
			t.Fatalf("%q: %v %v %v %v", a.String(), okA, okB, errA, errB)
		}
		if !bytes.Equal(ca, cb) {
			t.Fatalf("spellings differ:\n%s\n%s\n→ %s\n→ %s", a.String(), b.String(), ca, cb)
		}
		if again, _, _ := idempotency.Canonical(ca, idempotency.Limits{}); !bytes.Equal(again, ca) {
			t.Fatalf("not a fixed point: %s → %s", ca, again)
		}
		sameValue(t, a.Bytes(), ca)
	}
}

// sameValue checks with encoding/json that canon means what body means.
func sameValue(t *testing.T, body, canon []byte) {
	t.Helper()
	var want, got any
	if err := json.Unmarshal(body, &want); err != nil {
		return // e.g. 1e400, which JSON.parse reads as Infinity
	}
	if err := json.Unmarshal(canon, &got); err != nil {
		t.Fatalf("canonical form of %q does not parse: %q: %v", body, canon, err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("canonical form changed the value:\n%q\n%q", body, canon)
	}
}

// FuzzCanonical cross-checks with encoding/json: a body is canonicalised as
// JSON exactly when it is valid JSON in valid UTF-8, the canonical form is a
// fixed point, and it holds the same value.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":[1,2,{"d":null,"c":"x"}],"a":1.50}`, `"\ud800\u0041"`, `1e400`, `[1e21,-0,0.1]`, `{"a":1,"a":2}`, `a=1&b=2`, `[[[[`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		canon, isJSON, err := idempotency.Canonical(body, idempotency.Limits{MaxBytes: 4096, MaxDepth: 16})
		if err != nil {
			if !errors.Is(err, idempotency.ErrTooDeep) && !errors.Is(err, idempotency.ErrTooLarge) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if valid := json.Valid(body) && utf8.Valid(body); isJSON != valid {
			t.Fatalf("Canonical(%q) isJSON = %v, encoding/json valid = %v", body, isJSON, valid)
		}
		if !isJSON {
			if !bytes.Equal(canon, body) {
				t.Fatalf("non-JSON body changed: %q → %q", body, canon)
			}
			return
		}
		if again, _, _ := idempotency.Canonical(canon, idempotency.Limits{MaxBytes: 1 << 20, MaxDepth: 16}); !bytes.Equal(again, canon) {
			t.Fatalf("not a fixed point: %q → %q → %q", body, canon, again)
		}
		sameValue(t, body, canon)
	})
}

// largeObject is a 1 MiB object of ~100 000 keys, with repeats: the input
// on which a quadratic key sort once took 30 s.
func largeObject() string {
	var b strings.Builder
	b.WriteString("{")
	for n := 0; b.Len() < idempotency.DefaultMaxBodyBytes-32; n++ {
		if n > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + strconv.Itoa(n*7919%50021) + `":` + strconv.Itoa(n))
	}
	b.WriteString("}")
	return b.String()
}

// TestCanonicalLargeObject checks the answer on the large object; its time
// is BenchmarkCanonicalLargeObject's (a timed assertion fails on a loaded
// machine, not on a slow sort).
func TestCanonicalLargeObject(t *testing.T) {
	body := largeObject()
	canon, isJSON, err := idempotency.Canonical([]byte(body), idempotency.Limits{})
	if err != nil || !isJSON {
		t.Fatalf("%v, %v", isJSON, err)
	}
	sameValue(t, []byte(body), canon)
}

// BenchmarkCanonicalLargeObject: well under a second per op (the quadratic
// sort took 30 s).
func BenchmarkCanonicalLargeObject(b *testing.B) {
	body := []byte(largeObject())
	for b.Loop() {
		if _, _, err := idempotency.Canonical(body, idempotency.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
