package circuit

import (
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/fnv"
)

// ScoutKey is where an open period the trip rule armed keeps its scouting
// (Breaker.Scout) for the next page of the tab: the keys it has seen, as
// hashes, and whether its one scout is still to come. It is there only
// while the period may still scout, so a reader that finds it knows that
// an in-scope request may be the scout and must wait for Go's answer,
// where a circuit stored without it is answered open at once.
//
// F5 asks the same keys again: all seen, all answered open, nothing sent.
// A page of other keys (a navigation to the healthy section while one
// upstream is down) sends its first new key as the scout, whose success
// withdraws the trip. A scout in flight when the page went away ended with
// nothing to observe (ScoutEnded): the slot is freed once, so reloads
// during a hang cannot send one scout each.
//
// The format is Go's alone: "<until> <flags> <key>…", until the stored
// circuit's (a record of another period is ignored and removed), flags a
// digit '0'–'3' (freedFlag, inFlightFlag), each key a base-36 FNV-1a hash,
// "!" before one that failed.
const ScoutKey = "gateway_circuit_v1_scout"

// Reloaded says the page that Load restored the circuit for is a reload of
// the one before it (F5): it asks what that page asked, and an outage's
// reloads must send nothing, so it sends no scout. What is stored of the
// scouting stays for a page of other keys.
func (b *Breaker) Reloaded() {
	b.ruled, b.savedScouts = false, ""
}

// keyOf is what the trip rule remembers of a request's key: its hash, so
// that what is stored says nothing of the URL and has a bounded size.
func keyOf(key string) string {
	if key == "" {
		return ""
	}
	return strconv.FormatUint(fnv.Sum64a(key), 36)
}

// saveScouts stores the open period's scouting when it may still scout,
// and removes what it stored otherwise. It writes only what changed.
func (b *Breaker) saveScouts() {
	if !b.ruled || b.scouted || b.phase != Open {
		if b.savedScouts != "" {
			b.savedScouts = ""
			b.remember(b.store.Delete(ScoutKey))
		}
		return
	}
	flags := byte('0')
	if b.freed {
		flags |= freedFlag
	}
	if b.scout != 0 {
		flags |= inFlightFlag
	}
	r := strconv.AppendInt(make([]byte, 0, 32+16*b.seen.Len()), b.state.Until, 10)
	r = append(r, ' ', flags)
	for _, key := range b.seen.Keys() {
		r = append(r, ' ')
		if failedMs, _ := b.seen.Peek(key); failedMs != 0 {
			r = append(r, '!')
		}
		r = append(r, key...)
	}
	if s := string(r); s != b.savedScouts {
		b.savedScouts = s
		b.remember(b.store.Set(ScoutKey, s))
	}
}

// loadScouts restores the scouting of the stored open period from raw (what
// ScoutKey held when Load began), or removes a record that is not its.
func (b *Breaker) loadScouts(raw string, ok bool) {
	if !ok {
		return
	}
	fields := strings.Split(raw, " ")
	if len(fields) < 2 || b.phase != Open || fields[0] != strconv.FormatInt(b.state.Until, 10) || len(fields[1]) != 1 || fields[1][0]&^3 != '0' {
		b.remember(b.store.Delete(ScoutKey))
		return
	}
	b.ruled = true
	for _, key := range fields[2:] {
		failedMs := int64(0)
		if len(key) > 1 && key[0] == '!' {
			key, failedMs = key[1:], 1
		}
		b.see(key, failedMs)
	}
	flags := fields[1][0]
	b.freed = flags&freedFlag != 0
	if flags&inFlightFlag != 0 { // the scout went with the page: it ended with nothing to observe
		b.scouted, b.freed = b.freed, true
	}
	b.savedScouts = raw
	b.saveScouts()
}

// The flags of a stored record, added to '0'.
const (
	freedFlag    = 1 // the slot was freed once
	inFlightFlag = 2 // a scout was in flight
)
