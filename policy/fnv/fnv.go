// Package fnv is the FNV-1a hashes the policies use, as hash/fnv computes
// them, without its hash.Hash interface (whose methods all link into the wasm).
// FNV is not a cryptographic hash; see the callers for why it is enough.
package fnv

import "math/bits"

// Sum64a is the 64-bit FNV-1a hash of s.
func Sum64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Sum128a is the 128-bit FNV-1a hash of b, big-endian as hash/fnv's Sum.
func Sum128a(b []byte) [16]byte {
	// h = hi·2⁶⁴ + lo; the prime is 2⁸⁸ + 0x13b.
	hi, lo := uint64(0x6c62272e07bb0142), uint64(0x62b821756295c58d)
	for _, c := range b {
		lo ^= uint64(c)
		h, l := bits.Mul64(0x13b, lo)
		hi, lo = h+lo<<24+0x13b*hi, l
	}
	var sum [16]byte
	for i := range 8 {
		sum[i], sum[8+i] = byte(hi>>(56-8*i)), byte(lo>>(56-8*i))
	}
	return sum
}
