// Package lru is the recency list under the bounded policy tables (negcache,
// stale, emptyttl): a string-keyed map whose entries are kept in order of
// last use. It never evicts by itself; each owner decides what "full" means
// (entries, bytes) and removes Oldest until it fits, counting what it drops.
// Not safe for concurrent use.
package lru

type entry[V any] struct {
	key        string
	value      V
	prev, next *entry[V] // toward older, toward newer
}

// List holds the entries; the zero List is not usable, call New.
type List[V any] struct {
	m      map[string]*entry[V]
	oldest *entry[V]
	newest *entry[V]
}

// New returns an empty List.
func New[V any]() *List[V] { return &List[V]{m: map[string]*entry[V]{}} }

// Len is the number of entries.
func (l *List[V]) Len() int { return len(l.m) }

// Keys returns the keys, oldest first.
func (l *List[V]) Keys() []string {
	keys := make([]string, 0, len(l.m))
	for e := l.oldest; e != nil; e = e.next {
		keys = append(keys, e.key)
	}
	return keys
}

// Get returns the value for key and marks it as just used.
func (l *List[V]) Get(key string) (V, bool) {
	e, ok := l.m[key]
	if !ok {
		var zero V
		return zero, false
	}
	l.unlink(e)
	l.pushNewest(e)
	return e.value, true
}

// Peek returns the value for key without marking it used.
func (l *List[V]) Peek(key string) (V, bool) {
	e, ok := l.m[key]
	if !ok {
		var zero V
		return zero, false
	}
	return e.value, true
}

// Put sets the value for key and marks it as just used.
func (l *List[V]) Put(key string, v V) {
	if e, ok := l.m[key]; ok {
		e.value = v
		l.unlink(e)
		l.pushNewest(e)
		return
	}
	e := &entry[V]{key: key, value: v}
	l.m[key] = e
	l.pushNewest(e)
}

// Remove deletes key and returns the value it had.
func (l *List[V]) Remove(key string) (V, bool) {
	e, ok := l.m[key]
	if !ok {
		var zero V
		return zero, false
	}
	delete(l.m, key)
	l.unlink(e)
	return e.value, true
}

// Oldest returns the least recently used entry.
func (l *List[V]) Oldest() (key string, v V, ok bool) {
	if l.oldest == nil {
		return "", v, false
	}
	return l.oldest.key, l.oldest.value, true
}

// Clear removes every entry.
func (l *List[V]) Clear() {
	clear(l.m)
	l.oldest, l.newest = nil, nil
}

func (l *List[V]) unlink(e *entry[V]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.oldest = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.newest = e.prev
	}
	e.prev, e.next = nil, nil
}

func (l *List[V]) pushNewest(e *entry[V]) {
	e.prev = l.newest
	if l.newest != nil {
		l.newest.next = e
	} else {
		l.oldest = e
	}
	l.newest = e
}

// RemoveOldest removes the least recently used entry and returns it.
func (l *List[V]) RemoveOldest() (key string, v V, ok bool) {
	if l.oldest == nil {
		return "", v, false
	}
	e := l.oldest
	delete(l.m, e.key)
	l.unlink(e)
	return e.key, e.value, true
}
