# The npm package @gatewaycircuit/browser (js/dist), included from the top-level
# Makefile; paths are relative to the repository root.
#
#   make js-package     js/dist: the package entries, types, licences, the docs (dist/docs) and
#                       the four hashed module files, each with its .br and .gz
#   make e2e-package    npm pack on a clean copy of the tree, install the tarball
#                       into a scratch app, use it from Node and from Chromium
#
# `npm pack` in js/ runs `make -C .. js-package` (its prepack script).

JS_PACKAGE_SRC := $(shell find js/src -name '*.ts' -not -name '*.test.ts') js/build.mjs js/package.json \
  js/tsconfig.json js/tsconfig.package.json js/gateway-circuit.d.ts js/bin/gateway-circuit-assets.mjs LICENSE \
  docs/api.md docs/nextjs.md docs/policies.md docs/contract.md docs/reliability.md docs/gateway.md docs/ledger.md

.PHONY: js-package e2e-package js-clean

js-package: js/dist/.stamp

js/dist/.stamp: $(JS_PACKAGE_SRC) dist/manifest.json node_modules/.stamp
	GO=$(GO) node js/build.mjs
	@touch $@

e2e-package: chromium node_modules/.stamp
	node tools/test-files.mjs package e2e/package.test.mjs

js-clean:
	rm -rf js/dist
