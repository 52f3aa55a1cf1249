# make bench's parts beside the bench: the cockatiel peer bundle for the
# per-call table, the page-load figures on their own (bench/pageload.mjs), and
# the memory per mutation (bench/memory.mjs).

.PHONY: bench-pageload bench-memory

build/bench/cockatiel.js: bench/cockatiel.mjs node_modules/.stamp
	@mkdir -p build/bench
	$(ESBUILD) $< --bundle --minify --format=iife --target=es2020 --log-level=warning --outfile=$@

bench-pageload: build chromium
	node bench/pageload.mjs

# What a page keeps per mutation: 30,000 in-scope POSTs through the module
# and through native fetch (MEMORY_POSTS to change); fails over native + 10 MiB.
bench-memory: build chromium
	node bench/memory.mjs
