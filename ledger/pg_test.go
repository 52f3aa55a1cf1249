package ledger_test

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// The tests' PostgreSQL: LEDGER_PG_DSN when set, else a server of their own
// (initdb on a temporary directory, on 127.0.0.1, as nobody when root),
// started once and stopped by TestMain. A server that cannot start fails
// the tests that need it, with the reason: nothing is skipped.
var pg struct {
	once sync.Once
	dsn  string // host=… port=… user=ledger (no dbname)
	err  error
	stop func()
	seq  atomic.Int64
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pg.stop != nil {
		pg.stop()
	}
	os.Exit(code)
}

// postgresDB returns a fresh, empty database on the tests' server.
func postgresDB(t testing.TB) *sql.DB {
	t.Helper()
	dsn := postgresDSN(t)
	admin, err := sql.Open("pgx", dsn+" dbname=postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("ledger_%d_%d", os.Getpid(), pg.seq.Add(1))
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("PostgreSQL: create database: %v", err)
	}
	db, err := sql.Open("pgx", dsn+" dbname="+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// postgresDSN starts the server if needed and returns its DSN without a
// database name.
func postgresDSN(t testing.TB) string {
	t.Helper()
	pg.once.Do(func() {
		if dsn := os.Getenv("LEDGER_PG_DSN"); dsn != "" {
			pg.dsn = dsn
			return
		}
		pg.dsn, pg.stop, pg.err = startPostgres()
	})
	if pg.err != nil {
		t.Fatalf("PostgreSQL cannot start (install Debian's postgresql, or set LEDGER_PG_DSN): %v", pg.err)
	}
	return pg.dsn
}

func pgBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(found) == 0 {
		return "", fmt.Errorf("%s not found on PATH or under /usr/lib/postgresql/*/bin", name)
	}
	return found[len(found)-1], nil
}

// startPostgres runs initdb and pg_ctl start on a temporary directory.
// initdb refuses root: as root, both run as nobody, who owns the directory.
func startPostgres() (dsn string, stop func(), err error) {
	initdb, err := pgBin("initdb")
	if err != nil {
		return "", nil, err
	}
	pgctl, err := pgBin("pg_ctl")
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "ledger-pg-")
	if err != nil {
		return "", nil, err
	}
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			return "", nil, fmt.Errorf("running as root and no user nobody: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return "", nil, err
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "nobody", "--"}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := run(initdb, "-D", data, "-U", "ledger", "--auth=trust", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	opts := fmt.Sprintf("-k %s -h 127.0.0.1 -p %d -c fsync=off -c max_connections=200", dir, port)
	if out, err := run(pgctl, "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("pg_ctl start: %v: %s %s", err, out, log)
	}
	stop = func() {
		_ = run(pgctl, "-D", data, "-m", "immediate", "-w", "stop").Run()
		os.RemoveAll(dir)
	}
	return fmt.Sprintf("host=127.0.0.1 port=%d user=ledger sslmode=disable", port), stop, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitFor polls cond until it holds or a minute has passed (a bound, not a
// timed assertion: a failing cond fails the test either way).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no %s within a minute", what)
		}
	}
}
