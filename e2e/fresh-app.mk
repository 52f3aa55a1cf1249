# A fresh create-next-app app (e2e/fixtures/fresh-app) that uses the package
# only as a user would: the npm pack tarball and demo/nextjs/README.md's steps.
# Included from the top-level Makefile; paths are relative to the repository root.
#
#   make fresh-app-build   npm pack of js/, npm install of the tarball, next build (in build/fresh-app)
#   make e2e-fresh-app     the F5 storm on it (next start) and one page load in next dev (StrictMode)
#
# Cached by a stamp: a new module build or an edited fixture or README builds it
# again; build/fresh-app keeps node_modules and Turbopack's cache (.next/cache).

FRESH_APP := build/fresh-app
FRESH_APP_SRC := $(shell find e2e/fixtures/fresh-app -type f) e2e/fixtures/setup-fresh-app.mjs demo/nextjs/README.md

.PHONY: fresh-app-build e2e-fresh-app

$(FRESH_APP)/.build-stamp: $(FRESH_APP_SRC) js/dist/.stamp
	node e2e/fixtures/setup-fresh-app.mjs $(FRESH_APP)
	cd $(FRESH_APP) && NEXT_TELEMETRY_DISABLED=1 npm run --silent build
	@touch $@

fresh-app-build: $(FRESH_APP)/.build-stamp

e2e-fresh-app: build fresh-app-build chromium nginx
	node --test e2e/fresh-app.test.mjs

# The suite is one of E2E_ONCE (e2e/engines.mk).
e2e-once: fresh-app-build
