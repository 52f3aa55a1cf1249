package ledger_test

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The proof on a real PostgreSQL: two server processes (internal/proofserver)
// on one database. Concurrent duplicates split across both make one
// effect, whatever the handler answers (201, or 503 and 500, which leave
// the key to a retry): the duplicates are answered 409 in flight; the
// process holding a request is killed with SIGKILL mid-handler and the
// retry through the other never runs it again; a restarted process finds
// every record.
func TestTwoProcessesOnePostgres(t *testing.T) {
	db := postgresDB(t)
	var dbname string
	if err := db.QueryRow(`SELECT current_database()`).Scan(&dbname); err != nil {
		t.Fatal(err)
	}
	dsn := postgresDSN(t) + " dbname=" + dbname
	bin := filepath.Join(t.TempDir(), "proofserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/proofserver").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	start := func() (*exec.Cmd, string) {
		cmd := exec.Command(bin, "-dsn", dsn, "-lease", "2s")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = &logWriter{t: t}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			t.Fatalf("proofserver did not start: %v", err)
		}
		go io.Copy(io.Discard, out)
		return cmd, "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	}
	charges := func(key string) int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM charges WHERE key = $1`, key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	a, urlA := start()
	_, urlB := start()

	// Concurrent duplicates, alternately through A and B: 50 to a handler
	// that answers 201 after 1 s, 10 to one that answers 503 (the key is
	// released) or 500 (the effect is unknown) after 500 ms.
	concurrent := func(n int, key, body string) []result {
		answers := make([]result, n)
		var wg sync.WaitGroup
		for i := range answers {
			url := urlA
			if i%2 == 1 {
				url = urlB
			}
			wg.Add(1)
			go func() { defer wg.Done(); answers[i] = post(t, url, key, body) }()
		}
		wg.Wait()
		return answers
	}
	answers := concurrent(50, `"dup"`, `{"delayMs":1000}`)
	checkOne(t, answers, 201, charges(`"dup"`))
	for _, status := range []int{503, 500} {
		key := `"dup-` + strconv.Itoa(status) + `"`
		checkOne(t, concurrent(10, key, `{"delayMs":500,"status":`+strconv.Itoa(status)+`}`), status, charges(key))
	}
	var first result
	for _, a := range answers {
		if a.status == 201 {
			first = a
			break
		}
	}

	// A holds a request mid-handler (its effect written, no answer) and is
	// killed; retries through B are in flight while A's lease runs, then in
	// doubt.
	held := make(chan result, 1)
	go func() { held <- post(t, urlA, `"held"`, `{"hold":true}`) }()
	waitFor(t, "effect of the held request", func() bool { return charges(`"held"`) == 1 })
	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.Wait()
	<-held // the connection died with A
	waitFor(t, "the end of A's lease", func() bool {
		r := post(t, urlB, `"held"`, `{"hold":true}`)
		if r.status != 409 || errorCode(r) != "idempotency_in_flight" && errorCode(r) != "idempotency_in_doubt" {
			t.Fatalf("retry through B after kill -9 of A: %+v", r)
		}
		return errorCode(r) == "idempotency_in_doubt"
	})
	for range 2 {
		r := post(t, urlB, `"held"`, `{"hold":true}`)
		if r.status != 409 || errorCode(r) != "idempotency_in_doubt" {
			t.Fatalf("retry through B after kill -9 of A: %+v", r)
		}
	}
	if n := charges(`"held"`); n != 1 {
		t.Fatalf("effects of the held request %d, want 1", n)
	}

	// A again, on the same database: the records are intact.
	_, urlA = start()
	if r := post(t, urlA, `"dup"`, `{"delayMs":1000}`); !r.replayed || r.body != first.body {
		t.Fatalf("after the restart: %+v, want the replay of %s", r, first.body)
	}
	if r := post(t, urlA, `"held"`, `{"hold":true}`); r.status != 409 || errorCode(r) != "idempotency_in_doubt" {
		t.Fatalf("after the restart: %+v", r)
	}
	if n, m := charges(`"dup"`), charges(`"held"`); n != 1 || m != 1 {
		t.Fatalf("effects %d and %d, want 1 and 1", n, m)
	}
}

func post(t *testing.T, url, key, body string) result {
	req, _ := http.NewRequest("POST", url+"/charge", strings.NewReader(body))
	req.Header.Set("X-User", "ann")
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return result{status: 0, body: err.Error()}
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return result{res.StatusCode, res.Header, string(b), res.Header.Get("Idempotency-Replayed") == "true"}
}

type logWriter struct{ t *testing.T }

func (w *logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
