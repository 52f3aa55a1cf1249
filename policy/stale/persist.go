package stale

// Saved is one copy's metadata as kept by a caller that stores the bodies
// itself (a server's database), so that a restart keeps the copies.
type Saved struct {
	Key        string
	ID         uint32
	StoredAtMs int64
	Bytes      int64
	LimitMs    int64 // may be served while its age is under this
}

// Saved returns the metadata of key's copy, without marking it used.
func (x *Index) Saved(key string) (Saved, bool) {
	e, ok := x.keys.Peek(key)
	return Saved{Key: key, ID: e.id, StoredAtMs: e.storedAtMs, Bytes: e.bytes, LimitMs: e.limitMs}, ok
}

// Restore puts back what Saved returned, least recently used first. Ids
// given out afterwards are above every restored one. Entries with no key,
// id 0, a negative size or no limit are skipped; the bounds apply as in
// Store, and what they evict is in Dropped.
func (x *Index) Restore(saved []Saved) {
	for _, s := range saved {
		if s.Key == "" || s.ID == 0 || s.Bytes < 0 || s.LimitMs <= 0 {
			continue
		}
		x.Remove(s.Key)
		x.keys.Put(s.Key, entry{id: s.ID, storedAtMs: s.StoredAtMs, bytes: s.Bytes, limitMs: s.LimitMs})
		x.bytes += s.Bytes
		x.lastID = max(x.lastID, s.ID)
		for x.keys.Len() > x.policy.MaxEntries || x.bytes > x.policy.MaxBytes {
			oldest, _, _ := x.keys.Oldest()
			x.Remove(oldest)
			x.evicted++
		}
	}
}
