package main

// rateWindow is how many seconds of history a rate keeps.
const rateWindow = 120

// rate counts events per wall-clock second (Unix seconds) over the last
// rateWindow seconds, in a fixed ring: the demo page's chart of requests
// reaching the gateway reads it. Not safe for concurrent use.
type rate struct {
	sec [rateWindow]int64 // the second slot i counts (slot = second % rateWindow)
	n   [rateWindow]int
}

// add counts one event in second s.
func (r *rate) add(s int64) {
	i := s % rateWindow
	if r.sec[i] != s {
		r.sec[i], r.n[i] = s, 0 // a slot from a second that left the window
	}
	r.n[i]++
}

// last returns [second, count] for each second of the window ending at now
// that counted anything, oldest first.
func (r *rate) last(now int64) [][2]int64 {
	out := [][2]int64{}
	for s := now - rateWindow + 1; s <= now; s++ {
		if i := s % rateWindow; s >= 0 && r.sec[i] == s && r.n[i] > 0 {
			out = append(out, [2]int64{s, int64(r.n[i])})
		}
	}
	return out
}
