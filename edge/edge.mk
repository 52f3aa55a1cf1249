# The edge gateway (edge/, docs/edge.md): Go compiled to wasm for Cloudflare
# Workers, state in Durable Objects with SQLite, run locally in workerd (the
# npm devDependency; its binary works offline).
#
#   make edge        build it and serve it in workerd on $(EDGE_ADDR), in
#                    front of $(EDGE_UPSTREAM) (the demo gateway by default)
#   make test-edge   host Go tests of edge/ and the workerd tests (node --test)
#   make bench-edge  the edge's figures (latency, memory, size, cold start)

EDGE_ADDR ?= 127.0.0.1:8787
EDGE_UPSTREAM ?= http://127.0.0.1:8080
EDGE_GO_SRC := $(shell find edge internal -name '*.go' -not -name '*_test.go') go.mod go.sum
EDGE_FILES := build/edge/edge.wasm build/edge/wasm_exec.js build/edge/worker.mjs build/edge/passthrough.mjs build/edge/testupstream

.PHONY: edge edge-build test-edge test-edge-go test-edge-workerd test-edge-browser bench-edge

edge-build: $(EDGE_FILES) node_modules/.stamp

build/edge/edge.wasm: $(EDGE_GO_SRC)
	@mkdir -p build/edge
	GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -o $@ ./edge/worker

build/edge/testupstream: $(shell find edge/testupstream -name '*.go') go.mod
	$(GO) build -o $@ ./edge/testupstream

build/edge/wasm_exec.js: $(WASM_EXEC)
	@mkdir -p build/edge && cp $< $@

build/edge/%.mjs: edge/js/%.mjs
	@mkdir -p build/edge && cp $< $@

edge: edge-build
	node edge/serve.mjs --addr $(EDGE_ADDR) --upstream $(EDGE_UPSTREAM)

test-edge: test-edge-go test-edge-workerd test-edge-browser

test-edge-go:
	GOOS=js GOARCH=wasm $(GO) vet ./edge/...
	$(GO) test ./edge/... ./internal/negcache/ ./internal/stale/

test-edge-workerd: edge-build
	node --test --test-concurrency=1 edge/test/*.test.mjs

bench-edge: edge-build
	node edge/bench.mjs

# The browser module through the edge, in Chromium (the demo build, the
# demo gateway as upstream).
test-edge-browser: build edge-build chromium
	node --test --test-concurrency=1 edge/e2e/
