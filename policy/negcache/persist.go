package negcache

// Saved is one key's backoff as a caller keeps it in its own storage (a
// server's database), so that a restart does not forget a window.
type Saved struct {
	Key     string
	UntilMs int64 // Unix ms: negative until then
	Steps   int   // failures that used the BackoffMs schedule
}

// Saved returns key's backoff, if one is remembered.
func (c *Cache) Saved(key string) (Saved, bool) {
	e, ok := c.keys.Peek(key)
	return Saved{Key: key, UntilMs: e.untilMs, Steps: e.steps}, ok
}

// Restore puts back what Saved returned, oldest first, at nowMs. Keys quiet
// for longer than the longest backoff are skipped (they would be forgotten
// at their next look-up anyway); a window further away than the longest
// backoff is clamped to it, so a bad record cannot hold a key for long; the
// MaxKeys bound applies as in Failed.
func (c *Cache) Restore(nowMs int64, saved []Saved) {
	for _, s := range saved {
		if s.Key == "" || s.Steps < 0 || nowMs >= s.UntilMs+c.longest {
			continue
		}
		c.keys.Put(s.Key, entry{untilMs: min(s.UntilMs, nowMs+c.longest), steps: s.Steps})
		for c.keys.Len() > c.policy.MaxKeys {
			c.keys.RemoveOldest()
			c.evicted++
		}
	}
}
