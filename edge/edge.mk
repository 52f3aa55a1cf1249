# The edge gateway (edge/, docs/edge.md): Go compiled to wasm for Cloudflare
# Workers, state in Durable Objects with SQLite, run locally in workerd (the
# npm devDependency; its binary works offline). edge/ is its own Go module
# (edge/go.mod replaces the product with ../): SQLite and safejs are its
# requirements, not the product's. The root's `go test ./...` does not cover
# it; test-edge-go does.
#
#   make edge        build it and serve it in workerd on $(EDGE_ADDR), in
#                    front of $(EDGE_UPSTREAM) (the demo gateway by default)
#   make test-edge   tsc of the worker, go vet + host Go tests of the edge
#                    module, the workerd tests (node --test) and the browser
#                    through the edge
#   make bench-edge  the edge's figures (latency, memory, size, cold start)

EDGE_ADDR ?= 127.0.0.1:8787
EDGE_UPSTREAM ?= http://127.0.0.1:8080
EDGE_GO_SRC := $(shell find edge $(PUBLIC_GO) -name '*.go' -not -name '*_test.go') go.mod edge/go.mod edge/go.sum
EDGE_FILES := build/edge/edge.wasm build/edge/wasm_exec.js build/edge/worker.mjs build/edge/passthrough.mjs build/edge/testupstream

.PHONY: edge edge-build test-edge test-edge-types test-edge-go test-edge-workerd test-edge-browser bench-edge

edge-build: $(EDGE_FILES) node_modules/.stamp

build/edge/edge.wasm: $(EDGE_GO_SRC)
	@mkdir -p build/edge
	cd edge && GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -o ../$@ ./worker

build/edge/testupstream: $(shell find edge/testupstream -name '*.go') edge/go.mod
	@mkdir -p build/edge
	cd edge && $(GO) build -o ../$@ ./testupstream

build/edge/wasm_exec.js: $(WASM_EXEC)
	@mkdir -p build/edge && cp $< $@

build/edge/%.mjs: edge/js/%.mjs
	@mkdir -p build/edge && cp $< $@

# The front worker and its Durable Objects are TypeScript: esbuild strips the
# types (the imports of wasm_exec.js, edge.wasm and cloudflare:workers stay
# as they are, for workerd or wrangler to resolve); test-edge-types checks them.
build/edge/worker.mjs: edge/js/worker.ts node_modules/.stamp
	@mkdir -p build/edge
	$(ESBUILD) $< --format=esm --target=es2022 --log-level=warning --outfile=$@

edge: edge-build
	node edge/serve.mjs --addr $(EDGE_ADDR) --upstream $(EDGE_UPSTREAM)

test-edge: test-edge-types test-edge-go test-edge-workerd test-edge-browser

# The worker's types against @cloudflare/workers-types of workerd's version.
test-edge-types: node_modules/.stamp
	node_modules/.bin/tsc --noEmit -p edge/js

test-edge-go:
	cd edge && GOOS=js GOARCH=wasm $(GO) vet ./... && $(GO) vet ./... && $(GO) test ./...
	$(GO) test ./policy/negcache/ ./policy/stale/
	@# The product's go.mod requires nothing: the edge's SQLite and safejs stay in edge/go.mod.
	@test "$$($(GO) list -m all)" = "github.com/gatewaycircuit/gatewaycircuit" || { echo "the root module has requirements:"; $(GO) list -m all; exit 1; }

test-edge-workerd: edge-build
	node tools/test-files.mjs edge-workerd --test-concurrency=1 edge/test/*.test.mjs

bench-edge: edge-build
	node edge/bench.mjs

# The browser module through the edge, in Chromium (the demo build, the
# demo gateway as upstream).
test-edge-browser: build edge-build chromium
	node tools/test-files.mjs edge-browser --test-concurrency=1 edge/e2e/
