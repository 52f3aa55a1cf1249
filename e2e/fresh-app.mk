# Fresh create-next-app apps (e2e/fixtures/fresh-app) that use the package
# only as a user would: the npm pack tarball and the recipe shipped in it
# (docs/nextjs.md), once without a CSP and once with the nonce-based CSP.
# Included from the top-level Makefile; paths are relative to the repository root.
#
#   make fresh-app-build   npm pack of js/, npm install of the tarball, next build
#                          (build/fresh-app and build/fresh-app-csp)
#   make e2e-fresh-app     what a team's CI runs (npm run lint, tsc --noEmit) on
#                          both, the F5 storm (next start, next dev), the CSP, the
#                          precompressed files
#
# Cached by a stamp: a new module build or an edited fixture or recipe builds it
# again; each app keeps node_modules and Turbopack's cache (.next/cache).

FRESH_APP := build/fresh-app
FRESH_APP_SRC := $(shell find e2e/fixtures/fresh-app -type f) e2e/fixtures/setup-fresh-app.mjs docs/nextjs.md

.PHONY: fresh-app-build e2e-fresh-app

$(FRESH_APP)/.build-stamp: $(FRESH_APP_SRC) js/dist/.stamp
	node e2e/fixtures/setup-fresh-app.mjs $(FRESH_APP)
	cd $(FRESH_APP) && NEXT_TELEMETRY_DISABLED=1 npm run --silent build
	@touch $@

$(FRESH_APP)-csp/.build-stamp: $(FRESH_APP_SRC) js/dist/.stamp | $(FRESH_APP)/.build-stamp
	node e2e/fixtures/setup-fresh-app.mjs $(FRESH_APP)-csp --csp
	cd $(FRESH_APP)-csp && NEXT_TELEMETRY_DISABLED=1 npm run --silent build
	@touch $@

fresh-app-build: $(FRESH_APP)/.build-stamp $(FRESH_APP)-csp/.build-stamp

e2e-fresh-app: build fresh-app-build chromium nginx
	node tools/test-files.mjs fresh-app e2e/fresh-app.test.mjs

# The suite is one of E2E_ONCE (e2e/engines.mk).
e2e-once: fresh-app-build
