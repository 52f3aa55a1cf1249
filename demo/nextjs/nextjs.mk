# The twin Next.js portals (demo/nextjs), built on the npm package (js/package.mk).
# Included from the top-level Makefile; paths are relative to the repository root.
#
#   make nextjs-build   npm ci (from demo/nextjs/package-lock.json) + next build of both portals
#   make e2e-nextjs     the portals' Chromium tests (e2e/nextjs.test.mjs)
#
# Cached: each step runs again only when its inputs changed (stamp files), and
# next build keeps Turbopack's cache in <app>/.next/cache between builds.
# On CI, keep demo/nextjs/node_modules (or ~/.npm) and demo/nextjs/*/.next/cache.

NEXTJS_DIR := demo/nextjs
NEXTJS_APPS := admin user
# What a portal build reads, besides the package: kit/, the app, the workspace manifests.
NEXTJS_SRC = $(shell find $(NEXTJS_DIR)/kit $(NEXTJS_DIR)/$(1) \
  \( -name node_modules -o -name .next -o -name public -o -name next-env.d.ts -o -name .build-stamp \) -prune -o -type f -print) \
  $(NEXTJS_DIR)/tsconfig.base.json $(NEXTJS_DIR)/node_modules/.stamp
.PHONY: nextjs-deps nextjs-build e2e-nextjs nextjs-clean

nextjs-deps: $(NEXTJS_DIR)/node_modules/.stamp

$(NEXTJS_DIR)/node_modules/.stamp: $(NEXTJS_DIR)/package-lock.json $(NEXTJS_DIR)/package.json $(NEXTJS_DIR)/kit/package.json \
    $(foreach a,$(NEXTJS_APPS),$(NEXTJS_DIR)/$(a)/package.json)
	cd $(NEXTJS_DIR) && npm ci --no-audit --no-fund
	@touch $@

# prebuild copies the hashed module files into public/_gc (gateway-circuit-assets).
define NEXTJS_APP_RULE
$(NEXTJS_DIR)/$(1)/.build-stamp: $(call NEXTJS_SRC,$(1)) js/dist/.stamp
	cd $(NEXTJS_DIR)/$(1) && NEXT_TELEMETRY_DISABLED=1 npm run --silent build
	@touch $$@
endef
$(foreach a,$(NEXTJS_APPS),$(eval $(call NEXTJS_APP_RULE,$(a))))

nextjs-build: $(foreach a,$(NEXTJS_APPS),$(NEXTJS_DIR)/$(a)/.build-stamp)

e2e-nextjs: build nextjs-build chromium
	node tools/test-files.mjs nextjs --test-concurrency=1 e2e/nextjs.test.mjs

nextjs-clean:
	rm -rf $(foreach a,$(NEXTJS_APPS),$(NEXTJS_DIR)/$(a)/.next $(NEXTJS_DIR)/$(a)/public/_gc $(NEXTJS_DIR)/$(a)/.build-stamp)
