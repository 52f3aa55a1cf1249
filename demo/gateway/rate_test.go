package main

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
)

func TestRate(t *testing.T) {
	var r rate
	const t0 = 1_764_000_000
	r.add(t0)
	r.add(t0)
	r.add(t0 + 2)
	if got, want := r.last(t0+2), [][2]int64{{t0, 2}, {t0 + 2, 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("last = %v, want %v", got, want)
	}
	// A second that shares t0's slot starts from zero; t0 has left the window.
	r.add(t0 + rateWindow)
	if got, want := r.last(t0+rateWindow), [][2]int64{{t0 + 2, 1}, {t0 + rateWindow, 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("last = %v, want %v", got, want)
	}
	if got := r.last(t0 + 3*rateWindow); len(got) != 0 {
		t.Fatalf("long after: last = %v, want nothing", got)
	}
}

// /__admin/counts says how many requests under /api/ reached the gateway in
// each second (the page's chart); /outside/ and the admin calls are not in it.
func TestCountsPerSecond(t *testing.T) {
	s, err := NewServer(Dirs{Web: "../web", Data: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	clock := time.Unix(1_764_000_000, 0)
	s.now = func() time.Time { return clock }
	do := func(method, path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w
	}
	counts := func() Counts {
		var c Counts
		if err := json.NewDecoder(do("GET", "/__admin/counts?prefix=/api/").Body).Decode(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	do("GET", "/api/items/1")
	do("GET", "/api/items/2")
	do("GET", "/outside/ping")
	clock = clock.Add(1500 * time.Millisecond)
	do("GET", "/api/items/1")
	c := counts()
	if want := [][2]int64{{1_764_000_000, 2}, {1_764_000_001, 1}}; c.Total != 3 || !reflect.DeepEqual(c.APIPerSecond, want) {
		t.Fatalf("counts = %+v, want total 3 and per second %v", c, want)
	}
	do("POST", "/__admin/reset")
	if c := counts(); c.Total != 0 || len(c.APIPerSecond) != 0 {
		t.Fatalf("after reset: %+v", c)
	}
}
