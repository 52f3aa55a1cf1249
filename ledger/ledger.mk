# The idempotency ledger for Go servers (ledger/, its own module: the SQL
# drivers are its requirements, not the product's). Its tests run the
# conformance suite on SQLite (in memory and a file) and on a PostgreSQL
# they start themselves (initdb on a temporary directory, as nobody when
# root), and the two-process proof on that PostgreSQL. A PostgreSQL that
# cannot start fails them with the reason.
#
#   make postgresql    installs Debian's postgresql when missing (as root)
#   make test-ledger   go vet + the ledger module's tests
#   make bench-ledger  the middleware's overhead, SQLite and PostgreSQL

PG_INITDB ?= $(firstword $(wildcard /usr/lib/postgresql/*/bin/initdb) $(shell command -v initdb))

.PHONY: postgresql test-ledger bench-ledger

postgresql:
	@if [ -z "$(PG_INITDB)" ] && [ -z "$$LEDGER_PG_DSN" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's postgresql"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null; \
	  else echo "postgresql is missing: run 'sudo apt-get install postgresql' (or set LEDGER_PG_DSN)" >&2; exit 1; fi; \
	fi

test-ledger: postgresql
	cd ledger && $(GO) vet ./... && $(GO) test -count=1 ./...

bench-ledger: postgresql
	cd ledger && $(GO) test -run '^$$' -bench Overhead -benchtime 2000x -count 1 . | grep -E 'Overhead|^ok'
