# gatewaycircuit — `make demo` serves the demo, `make test` runs every test.
# Both install what is missing on a fresh machine (npm ci; Debian's chromium
# and fonts-noto-cjk when root).

SHELL := /bin/bash
GO ?= go
GOROOT := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/wasm_exec.js
WASM_FLAGS := -trimpath -ldflags="-s -w"
ESBUILD := node_modules/.bin/esbuild
ADDR ?= 127.0.0.1:8080
CHROMIUM ?= /usr/bin/chromium

# The product's public packages: the rules the browser's wasm, the edge and
# the Go server's ledger share (the edge module imports no internal/).
PUBLIC_GO := idempotency policy
GO_SRC := $(shell find $(PUBLIC_GO) internal wasm -name '*.go' -not -name '*_test.go') go.mod $(wildcard go.sum)
JS_SRC := $(shell find js/src -name '*.ts' -not -name '*.test.ts')

.PHONY: all build build-product deps system-deps install build-all chromium demo test check test-go test-wasm test-js test-boundary e2e bench clean

all: build

# Node ^20.19 or >= 22.12 (js/README.md). The tools for the Firefox and WebKit
# suites and the bench (puppeteer-core, selenium-webdriver, cockatiel) declare
# Node >= 22 and run on 20 (tested here on 20.20); npm's warnings about them
# are silenced (--loglevel=error) and the version is checked here instead.
node_modules/.stamp: package.json package-lock.json
	@node -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 20 || (a === 20 && b < 19) || (a === 22 && b < 12) || a === 21) { console.error("Node " + process.version + ": the build needs Node ^20.19 or >= 22.12"); process.exit(1); }'
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

deps: node_modules/.stamp

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's chromium and fonts-noto-cjk"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk >/dev/null; \
	  else echo "chromium is missing: run 'sudo apt-get install chromium fonts-noto-cjk'" >&2; exit 1; fi; \
	fi

# The product (dist/) and the demo (demo/demo.mk), built apart.
build: build-product build-demo

build-product: dist/manifest.json dist/gateway-circuit.d.ts

# Hashed immutable copies and precompressed .br/.gz beside the stable names.
dist/manifest.json: dist/gateway-circuit.wasm dist/gateway-circuit.js dist/gateway-circuit-facade.js dist/gateway-circuit-engine.js tools/pack-dist.mjs
	node tools/pack-dist.mjs dist

dist/gateway-circuit.wasm: $(GO_SRC)
	GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -o $@ ./wasm

build/wasm_exec.js: $(WASM_EXEC)
	@mkdir -p build && cp $< $@

# Every shipped .js starts with a comment ESLint honours: apps copy these
# minified files into public/, which their lint config (create-next-app's
# flat config) would otherwise lint.
LINT_CLEAN := --banner:js='/* eslint-disable */'

# Three files, each naming the next by its content hash (as tools/pack-dist.mjs
# writes it) and loading it beside itself: the tag's file (window.gatewayCircuit
# until the facade runs; it blocks the first paint, so it is small), the
# facade's file (the facade, the pre-ready gate, the policies; fetched at once)
# and the engine's file (wasm_exec.js, the wasm loader, the Go path; fetched
# with the wasm when the page is idle).
dist/gateway-circuit-engine.js: $(JS_SRC) build/wasm_exec.js node_modules/.stamp js/tsconfig.json Makefile
	node_modules/.bin/tsc -p js
	$(ESBUILD) js/src/engine-file.ts --bundle --minify --format=iife --target=es2020 --log-level=warning $(LINT_CLEAN) --outfile=$@

dist/gateway-circuit-facade.js: $(JS_SRC) dist/gateway-circuit-engine.js
	$(ESBUILD) js/src/facade-file.ts --bundle --minify --format=iife --target=es2020 --log-level=warning $(LINT_CLEAN) \
	  --define:GATEWAY_CIRCUIT_ENGINE="\"gateway-circuit-engine.$$(sha256sum dist/gateway-circuit-engine.js | cut -c1-12).js\"" --outfile=$@

dist/gateway-circuit.js: $(JS_SRC) dist/gateway-circuit-facade.js
	$(ESBUILD) js/src/script.ts --bundle --minify --format=iife --target=es2020 --log-level=warning $(LINT_CLEAN) \
	  --define:GATEWAY_CIRCUIT_FACADE="\"gateway-circuit-facade.$$(sha256sum dist/gateway-circuit-facade.js | cut -c1-12).js\"" --outfile=$@

dist/gateway-circuit.d.ts: js/gateway-circuit.d.ts dist/gateway-circuit.js
	cp $< $@

demo: build
	build/gateway -addr $(ADDR) -root .

# Every test, stage by stage (tools/stages.mjs: each stage runs to its end,
# then a table of each stage's wall time and the slowest test files): the
# installs, the builds, host Go, Go under wasm (node), JS units, the wasm
# through the shim, the e2e suites (once in Chromium, and the ones that can
# differ per engine in Firefox and WebKit beside it), a short fuzz and soak
# pass, the edge and the server ledger.
TEST_STAGES := install build-all test-go test-demo test-wasm test-js test-boundary e2e fuzz-ci soak-short test-edge test-ledger
test:
	@node tools/stages.mjs $(TEST_STAGES)

# What the test stages need from outside, installed once: Debian's packages
# (one apt-get for all that are missing, when root), the npm packages.
install: system-deps node_modules/.stamp nextjs-deps

# Everything the test stages build (each is cached: a stamp or the file).
build-all: build build-faultwasm nextjs-build fresh-app-build edge-build dist/gateway-circuit.wasm build/wasm_exec.js

# The fast subset, for every change: vet, host Go, Go under wasm, the JS
# units, and the built wasm through the real shim (no browser).
check: test-go test-wasm test-js test-boundary

test-go:
	$(GO) vet ./...
	$(GO) test ./...

# Under node, with the storage imports the page's glue gives the wasm
# (tools/wasm-exec.mjs runs js/src/gostorage.ts, bundled here).
test-wasm: build/wasmtest/gostorage.mjs
	GOOS=js GOARCH=wasm $(GO) vet $(PUBLIC_GO:%=./%/...) ./internal/... ./wasm/...
	GOOS=js GOARCH=wasm $(GO) test -exec="node --stack-size=8192 $(CURDIR)/tools/wasm-exec.mjs" $(PUBLIC_GO:%=./%/...) ./internal/...

build/wasmtest/gostorage.mjs: js/src/gostorage.ts js/src/storage.ts js/src/abi.gen.ts node_modules/.stamp
	@mkdir -p build/wasmtest
	echo 'export { goStorage } from "./js/src/gostorage.ts"; export { sessionStorageOf } from "./js/src/storage.ts"; export { IMPORT_MODULE } from "./js/src/abi.gen.ts";' | \
	  $(ESBUILD) --bundle --format=esm --platform=node --target=node20 --log-level=warning --outfile=$@

test-js: node_modules/.stamp build/wasm_exec.js
	$(ESBUILD) $$(find js/src -name '*.test.ts') --bundle --platform=node --format=esm --target=node20 --log-level=warning --outdir=build/jstest --out-extension:.js=.mjs
	node tools/test-files.mjs js --expose-gc --test-force-exit build/jstest/
	node_modules/.bin/tsc -p js/typecheck

# The built wasm driven through the real shim in Node, against a fake
# network (js/test/boundary.test.ts): every decision kind and flag; and
# every phase compared with Go (js/test/phases.test.ts).
test-boundary: dist/gateway-circuit.wasm build/wasm_exec.js node_modules/.stamp
	$(ESBUILD) js/test/boundary.test.ts js/test/phases.test.ts --bundle --platform=node --format=esm --target=node20 --log-level=warning --outdir=build/boundary --out-extension:.js=.mjs
	node tools/test-files.mjs boundary --expose-gc --test-force-exit build/boundary/


# The floor program and Go's wasm_exec.js, packed like dist/, for make bench.
build/bench/manifest.json: wasm/floor/main.go $(WASM_EXEC) tools/pack-dist.mjs
	@mkdir -p build/bench
	GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -o build/bench/floor.wasm ./wasm/floor
	cp $(WASM_EXEC) build/bench/wasm_exec.js
	cp bench/web/reference.js build/bench/
	node tools/pack-dist.mjs build/bench floor.wasm wasm_exec.js

bench: build build/bench/manifest.json build/bench/cockatiel.js chromium
	node bench/run.mjs
	node bench/pageload.mjs
	node bench/memory.mjs

clean: nextjs-clean js-clean
	rm -rf dist build

# Debian's packages the tests use, those missing installed in one apt-get
# (as root; else the command to run is printed). Each suite's own target
# (chromium, engines, nginx, postgresql) checks for its part again.
SYSTEM_DEPS := /usr/bin/chromium:chromium /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc:fonts-noto-cjk /usr/bin/firefox-esr:firefox-esr \
  /usr/bin/WebKitWebDriver:webkit2gtk-driver /usr/bin/xvfb-run:xvfb /usr/bin/xauth:xauth /usr/sbin/nginx:nginx
system-deps:
	@missing=""; for d in $(SYSTEM_DEPS); do [ -e "$${d%%:*}" ] || missing="$$missing $${d##*:}"; done; \
	[ -n "$(PG_INITDB)" ] || [ -n "$$LEDGER_PG_DSN" ] || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else echo "missing:$$missing: run 'sudo apt-get install$$missing'" >&2; exit 1; fi; \
	fi

# Targets kept beside what they build (each file lists its own).
-include bench/bench.mk
-include e2e/reliability.mk
-include e2e/contract.mk
-include e2e/nginx.mk
-include e2e/engines.mk
-include js/package.mk
-include demo/demo.mk
-include demo/nextjs/nextjs.mk
-include edge/edge.mk
-include ledger/ledger.mk
-include e2e/fresh-app.mk
