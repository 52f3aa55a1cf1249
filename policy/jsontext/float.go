package jsontext

import (
	"math"
	"math/bits"
)

// maxDigits is how many significant digits Float keeps. A double, or the
// midpoint between two, has at most 768 of them, so digits past 800 can only
// tell "above" from "exactly at": a sticky bit says which.
const maxDigits = 800

// Float is the float64 nearest to the number tok, a token Number accepted,
// rounded as strconv.ParseFloat(tok, 64) rounds it (half to even), with ±Inf
// past the float64 range where ParseFloat also reports ErrRange. It stands
// in for ParseFloat, whose generality (hex, Inf, underscores, float32, its
// error values) costs the wasm ~11 KB brotli.
func Float(tok string) float64 {
	neg := tok != "" && tok[0] == '-'
	var digits []byte // significant digits, leading zeros dropped, as values 0-9
	dp := 0           // the value is 0.digits × 10^dp
	trunc := false    // nonzero digits dropped past maxDigits
	i, point := 0, false
	if neg {
		i++
	}
	for ; i < len(tok) && tok[i] != 'e' && tok[i] != 'E'; i++ {
		switch c := tok[i]; {
		case c == '.':
			point = true
		case c == '0' && len(digits) == 0:
			if point {
				dp--
			}
		default:
			if !point {
				dp++
			}
			if len(digits) < maxDigits {
				digits = append(digits, c-'0')
			} else if c != '0' {
				trunc = true
			}
		}
	}
	if i < len(tok) { // the exponent, capped: past ±10⁵ only its sign matters
		i++
		expNeg := tok[i] == '-'
		if tok[i] == '+' || tok[i] == '-' {
			i++
		}
		e := 0
		for ; i < len(tok); i++ {
			if e < 100000 {
				e = e*10 + int(tok[i]-'0')
			}
		}
		if expNeg {
			e = -e
		}
		dp += e
	}
	for len(digits) > 0 && digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	var f float64
	switch exp := dp - len(digits); {
	case len(digits) == 0 || dp < -330: // under half the smallest double
	case dp > 310:
		f = math.Inf(1)
	case !trunc && len(digits) <= 15 && -22 <= exp && exp <= 22:
		// Exact: the digits and 10^|exp| are doubles, one operation rounds.
		var m uint64
		for _, d := range digits {
			m = m*10 + uint64(d)
		}
		p := 1.0
		for n := max(exp, -exp); n > 0; n-- {
			p *= 10
		}
		if f = float64(m); exp < 0 {
			f /= p
		} else {
			f *= p
		}
	default:
		f = slowFloat(digits, exp, trunc)
	}
	if neg {
		f = -f
	}
	return f
}

// slowFloat rounds digits × 10^exp exactly, in big integers: q = ⌊num/den⌋
// to 55 bits, then to the double's precision (53 bits, fewer when
// subnormal), with sticky telling whether anything was left over.
func slowFloat(digits []byte, exp int, trunc bool) float64 {
	num, den := nat{0}, nat{1}
	for i := 0; i < len(digits); i += 9 {
		chunk, scale := uint32(0), uint32(1)
		for _, d := range digits[i:min(i+9, len(digits))] {
			chunk, scale = chunk*10+uint32(d), scale*10
		}
		num = num.mulAdd(scale, chunk)
	}
	if exp > 0 {
		num = num.mulPow10(exp)
	} else {
		den = den.mulPow10(-exp)
	}
	// num/den lies in (2^(b-1), 2^(b+1)); scaled by 2^s, in (2^54, 2^56).
	s := 55 - (num.bitLen() - den.bitLen())
	if s > 0 {
		num = num.shl(uint(s))
	} else {
		den = den.shl(uint(-s))
	}
	var q uint64
	for i, t := 55, den.shl(55); i >= 0; i, t = i-1, t.shr1() {
		if num.cmp(t) >= 0 {
			num = num.sub(t)
			q |= 1 << i
		}
	}
	sticky := trunc || num.bitLen() > 0
	e2 := -s // the value is (q + a fraction) × 2^e2
	if q >= 1<<55 {
		sticky = sticky || q&1 == 1
		q >>= 1
		e2++
	}
	// Round q (55 bits) to 53, or to fewer where the result is subnormal.
	shift := 2
	if top := e2 + 54; top < -1022 {
		shift = min(2-1022-top, 60)
	}
	mant, rest, half := q>>shift, q&(1<<shift-1), uint64(1)<<(shift-1)
	if rest > half || rest == half && (sticky || mant&1 == 1) {
		mant++
	}
	return math.Ldexp(float64(mant), e2+shift)
}

// nat is a natural number in base 2^32, least significant limb first, with
// no leading zero limb (zero is nat{0}).
type nat []uint32

// mulAdd returns x·m + a, in x's storage.
func (x nat) mulAdd(m, a uint32) nat {
	carry := uint64(a)
	for i, l := range x {
		t := uint64(l)*uint64(m) + carry
		x[i], carry = uint32(t), t>>32
	}
	if carry != 0 {
		x = append(x, uint32(carry))
	}
	return x.norm()
}

func (x nat) mulPow10(n int) nat {
	for ; n >= 9; n -= 9 {
		x = x.mulAdd(1e9, 0)
	}
	for ; n > 0; n-- {
		x = x.mulAdd(10, 0)
	}
	return x
}

// shr1 returns x/2, in x's storage.
func (x nat) shr1() nat {
	for i := range x {
		x[i] >>= 1
		if i+1 < len(x) {
			x[i] |= x[i+1] << 31
		}
	}
	return x.norm()
}

func (x nat) shl(n uint) nat {
	limbs, n := int(n/32), n%32
	z := make(nat, len(x)+limbs+1)
	for i, l := range x {
		z[i+limbs] |= l << n
		if n > 0 {
			z[i+limbs+1] = l >> (32 - n)
		}
	}
	return z.norm()
}

// sub returns x - y for x ≥ y, in x's storage.
func (x nat) sub(y nat) nat {
	var borrow uint32
	for i, l := range x {
		var r uint32
		if i < len(y) {
			r = y[i]
		}
		x[i], borrow = bits.Sub32(l, r, borrow)
	}
	return x.norm()
}

func (x nat) cmp(y nat) int {
	if len(x) != len(y) {
		return len(x) - len(y)
	}
	for i := len(x) - 1; i >= 0; i-- {
		if x[i] != y[i] {
			if x[i] < y[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (x nat) bitLen() int {
	return 32*(len(x)-1) + bits.Len32(x[len(x)-1])
}

func (x nat) norm() nat {
	for len(x) > 1 && x[len(x)-1] == 0 {
		x = x[:len(x)-1]
	}
	return x
}
