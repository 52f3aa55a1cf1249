# The demo, apart from the product: its own Go module (demo/go.mod, which
# replaces the product with ../ and imports only its public packages), the
# gateway server and the demo page. Included from the top-level Makefile.
#
#   make build-demo   build/gateway and build/demo/app.js
#   make test-demo    go vet + go test of the demo module (SQLite lives here, not in the product)

DEMO_GO_SRC := $(shell find demo/gateway -name '*.go' -not -name '*_test.go') demo/go.mod demo/go.sum \
  $(shell find $(PUBLIC_GO) internal ledger -name '*.go' -not -name '*_test.go') go.mod ledger/go.mod ledger/go.sum

.PHONY: build-demo test-demo

build-demo: build/demo/app.js build/gateway

build/demo/app.js: $(wildcard demo/web/*.ts) $(JS_SRC) node_modules/.stamp
	$(ESBUILD) demo/web/app.ts --bundle --minify --format=iife --target=es2020 --log-level=warning --outfile=$@

build/gateway: $(DEMO_GO_SRC)
	cd demo && $(GO) build -o ../build/gateway ./gateway

test-demo:
	cd demo && $(GO) vet ./... && $(GO) test ./...
