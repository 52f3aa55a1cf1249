// Package store is the small key/value interface the policies persist through.
//
// In the browser it is backed by window.sessionStorage (see internal/jsbridge);
// on the host, and in tests, by Memory. Values are strings because that is
// what sessionStorage holds.
package store

import (
	"errors"
	"sync"
)

// ErrUnavailable is returned (wrapped) when the backing storage cannot be
// used at all: a sandboxed iframe, storage disabled by the user, no global.
var ErrUnavailable = errors.New("store: unavailable")

// ErrQuota is returned (wrapped) when a write does not fit.
var ErrQuota = errors.New("store: quota exceeded")

// Store is a string key/value store. A missing key is not an error:
// Get reports it with ok == false.
type Store interface {
	Get(key string) (value string, ok bool, err error)
	Set(key, value string) error
	Delete(key string) error
}

// Memory is an in-memory Store, safe for concurrent use.
type Memory struct {
	mu sync.Mutex // guards m
	m  map[string]string
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{m: map[string]string{}} }

// Get implements Store.
func (s *Memory) Get(key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok, nil
}

// Set implements Store.
func (s *Memory) Set(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = value
	return nil
}

// Delete implements Store.
func (s *Memory) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}
