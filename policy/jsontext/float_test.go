package jsontext_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/jsontext"
)

// sameFloat checks Float(tok) against strconv.ParseFloat bit for bit (the
// sign of zero included).
func sameFloat(t *testing.T, tok string) {
	t.Helper()
	want, _ := strconv.ParseFloat(tok, 64) // ±Inf with ErrRange past the range
	if got := jsontext.Float(tok); math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("Float(%q) = %v (%#x), strconv: %v (%#x)", tok, got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

func TestFloatEdges(t *testing.T) {
	// Halfway cases and their neighbours, the ends of the range, subnormals,
	// long inputs whose last digit decides, and numbers the fast path takes.
	for _, tok := range []string{
		"0", "-0", "0.0", "-0.0e-0", "1", "-1", "12.5e-3", "1E+9", "0.1", "0.3", "123456.789", "1e21", "1e-7",
		"9007199254740992", "9007199254740993", "9007199254740993.0000000001", "9007199254740995", "9007199254740994.9999999999999999999",
		"1e22", "1e23", "8.98846567431158e307", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
		"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999",
		"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792",
		"2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308", "4.9406564584124654e-324",
		"2.4703282292062327e-324", "2.4703282292062328e-324", "2.47032822920623272e-324", "5e-324", "1e-324", "3e-324",
		"1e-400", "-1e-400", "1e400", "-1e400", "1e999999999999", "1e-999999999999", "0e999999999", "0.000000000000000000000000000000000001e36",
		"1" + strings.Repeat("0", 400) + "e-400", "0." + strings.Repeat("0", 400) + "1e400",
		"1." + strings.Repeat("0", 1000) + "1", "0.5" + strings.Repeat("0", 900) + "1e-323",
		"2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324",
	} {
		sameFloat(t, tok)
	}
}

// Random numbers near doubles and near the midpoints between them, spelt
// with few and with many digits, over the whole exponent range.
func TestFloatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		f := math.Float64frombits(r.Uint64() &^ (1 << 63))
		if math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		sameFloat(t, strconv.FormatFloat(f, 'e', -1, 64))
		sameFloat(t, strconv.FormatFloat(f, 'e', r.IntN(25), 64))
		// The midpoint to the next double, exactly, then nudged by one digit.
		next := math.Nextafter(f, math.Inf(1))
		if math.IsInf(next, 0) {
			continue
		}
		exact := strconv.FormatFloat(f, 'e', 800, 64) // a double has ≤ 767 significant digits
		exactNext := strconv.FormatFloat(next, 'e', 800, 64)
		m := midpoint(exact, exactNext)
		sameFloat(t, m)
		above, below := nudge(m, true), nudge(m, false)
		sameFloat(t, above)
		sameFloat(t, below)
		if jsontext.Float(above) != next || jsontext.Float(below) != f {
			t.Fatalf("%s is not the midpoint of %v and %v", m, f, next)
		}
	}
}

// midpoint returns (a+b)/2 for two numbers in 'e' format with the same
// number of digits and exponents that differ by at most one.
func midpoint(a, b string) string {
	am, ae, _ := strings.Cut(a, "e")
	bm, be, _ := strings.Cut(b, "e")
	ea, _ := strconv.Atoi(ae)
	eb, _ := strconv.Atoi(be)
	ad := strings.Replace(am, ".", "", 1)
	bd := strings.Replace(bm, ".", "", 1)
	if eb > ea { // align: a gets a leading zero
		ad = "0" + ad
		bd = bd + "0"
		ea = eb
	}
	// sum, then halve, digit by digit
	sum := make([]byte, len(ad)+1)
	carry := 0
	for i := len(ad) - 1; i >= 0; i-- {
		d := int(ad[i]-'0') + int(bd[i]-'0') + carry
		sum[i+1], carry = byte(d%10), d/10
	}
	sum[0] = byte(carry)
	half := make([]byte, len(sum)+1)
	rem := 0
	for i, d := range append(sum, 0) {
		v := rem*10 + int(d)
		half[i], rem = byte('0'+v/2), v%2
	}
	// sum has one more leading place than a; half, one more trailing one.
	return "0." + string(half) + "e" + strconv.Itoa(ea+2)
}

// nudge moves s by one unit in its last digit, up or down.
func nudge(s string, up bool) string {
	m, e, _ := strings.Cut(s, "e")
	b := []byte(m)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '.' {
			continue
		}
		if up && b[i] < '9' {
			b[i]++
			break
		}
		if !up && b[i] > '0' {
			b[i]--
			break
		}
		if up {
			b[i] = '0'
		} else {
			b[i] = '9'
		}
	}
	return string(b) + "e" + e
}

func FuzzFloat(f *testing.F) {
	for _, s := range []string{"0", "-0", "12.5e-3", "1E+9", "9007199254740993", "1e400", "2.4703282292062328e-324", "1.7976931348623158e308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s := jsontext.Scanner{S: in}
		if tok, ok := s.Number(); ok {
			sameFloat(t, tok)
		}
	})
}
