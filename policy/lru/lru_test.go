package lru_test

import (
	"fmt"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/lru"
)

func Example() {
	l := lru.New[int]()
	l.Put("a", 1)
	l.Put("b", 2)
	l.Put("c", 3)
	l.Get("a") // a is now the most recent
	for l.Len() > 1 {
		k, v, _ := l.RemoveOldest()
		fmt.Println("evict", k, v)
	}
	// Output:
	// evict b 2
	// evict c 3
}

// order lists the keys from oldest to newest by draining a copy of the operations.
func order(l *lru.List[int]) []string {
	var keys []string
	for {
		k, _, ok := l.Oldest()
		if !ok {
			return keys
		}
		keys = append(keys, k)
		l.Remove(k)
	}
}

func TestOrderScripts(t *testing.T) {
	tests := []struct {
		name string
		ops  []string // "put k", "get k", "peek k", "del k", "clear"
		want string
	}{
		{"insertion order", []string{"put a", "put b", "put c"}, "[a b c]"},
		{"get refreshes", []string{"put a", "put b", "get a"}, "[b a]"},
		{"peek does not", []string{"put a", "put b", "peek a"}, "[a b]"},
		{"put again refreshes", []string{"put a", "put b", "put a"}, "[b a]"},
		{"remove middle, ends", []string{"put a", "put b", "put c", "del b", "del a", "put d"}, "[c d]"},
		{"remove the only one", []string{"put a", "del a", "put b"}, "[b]"},
		{"missing keys are no-ops", []string{"get x", "del x", "peek x", "put a"}, "[a]"},
		{"clear", []string{"put a", "put b", "clear", "put c"}, "[c]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lru.New[int]()
			for i, op := range tt.ops {
				var verb, key string
				fmt.Sscan(op, &verb, &key)
				switch verb {
				case "put":
					l.Put(key, i)
				case "get":
					l.Get(key)
				case "peek":
					l.Peek(key)
				case "del":
					l.Remove(key)
				case "clear":
					l.Clear()
				}
			}
			if got := fmt.Sprint(order(l)); got != tt.want {
				t.Fatalf("order = %s, want %s", got, tt.want)
			}
		})
	}
}
