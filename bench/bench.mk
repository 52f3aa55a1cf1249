# make bench's parts beside the bench: the cockatiel peer bundle for the
# per-call table, and the page-load figures on their own (bench/pageload.mjs).

.PHONY: bench-pageload

build/bench/cockatiel.js: bench/cockatiel.mjs node_modules/.stamp
	@mkdir -p build/bench
	$(ESBUILD) $< --bundle --minify --format=iife --target=es2020 --log-level=warning --outfile=$@

bench-pageload: build chromium
	node bench/pageload.mjs
