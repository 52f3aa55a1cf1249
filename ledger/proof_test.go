package ledger_test

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The proof on a real PostgreSQL: two server processes (internal/proofserver)
// on one database. Concurrent duplicates split across both make one
// effect; the process holding a request is killed with SIGKILL mid-handler
// and the retry through the other never runs it again; a restarted
// process finds every record.
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
		cmd := exec.Command(bin, "-dsn", dsn, "-lease", "2s", "-wait", "1m")
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

	// 50 concurrent duplicates, alternately through A and B.
	answers := make([]result, 50)
	var wg sync.WaitGroup
	for i := range answers {
		url := urlA
		if i%2 == 1 {
			url = urlB
		}
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = post(t, url, `"dup"`, `{"delayMs":200}`) }()
	}
	wg.Wait()
	checkOne(t, answers, charges(`"dup"`))

	// A holds a request mid-handler (its effect written, no answer) and is
	// killed; the retry through B waits out A's lease and is in doubt.
	held := make(chan result, 1)
	go func() { held <- post(t, urlA, `"held"`, `{"hold":true}`) }()
	waitFor(t, "effect of the held request", func() bool { return charges(`"held"`) == 1 })
	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.Wait()
	<-held // the connection died with A
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
	if r := post(t, urlA, `"dup"`, `{"delayMs":200}`); !r.replayed || r.body != answers[0].body {
		t.Fatalf("after the restart: %+v, want the replay of %s", r, answers[0].body)
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
