package ledgercore

import "sync"

// Flights are the requests one process is running, by ID, so that a
// duplicate arriving meanwhile waits for the one in flight and shares its
// answer (of type A, the adapter's response) instead of reading the store.
// The zero Flights is ready to use.
type Flights[A any] struct {
	mu sync.Mutex        // guards m; never held across a store call or a run
	m  map[ID]*Flight[A] // the requests in flight
}

// Flight is one request in flight.
type Flight[A any] struct {
	fingerprint string
	done        chan struct{} // closed when answer is set
	answer      A
}

// Done is closed once the flight has its answer.
func (f *Flight[A]) Done() <-chan struct{} { return f.done }

// Answer is the flight's answer; read it once Done is closed.
func (f *Flight[A]) Answer() A { return f.answer }

// Join returns the flight of id (nil when this process runs none), and
// whether a request with body fingerprint fp must be refused as a Mismatch
// instead of joining it.
func (fs *Flights[A]) Join(id ID, fp string) (f *Flight[A], mismatch bool) {
	fs.mu.Lock()
	f = fs.m[id]
	fs.mu.Unlock()
	return f, f != nil && f.fingerprint != fp
}

// Start registers the flight of id, after its record was claimed: from here
// on, duplicates in this process join it.
func (fs *Flights[A]) Start(id ID, fp string) *Flight[A] {
	f := &Flight[A]{fingerprint: fp, done: make(chan struct{})}
	fs.mu.Lock()
	if fs.m == nil {
		fs.m = map[ID]*Flight[A]{}
	}
	fs.m[id] = f
	fs.mu.Unlock()
	return f
}

// Land gives f its answer, wakes the requests that joined it and forgets
// it: the next duplicate reads the record.
func (fs *Flights[A]) Land(id ID, f *Flight[A], answer A) {
	fs.mu.Lock()
	f.answer = answer
	if fs.m[id] == f {
		delete(fs.m, id)
	}
	fs.mu.Unlock()
	close(f.done)
}
