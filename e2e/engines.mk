# The e2e suites in three engines (e2e/driver/): Chromium, Firefox ESR, WebKitGTK.
#
#   make e2e-engines      the portable suites once per engine in E2E_ENGINES, the engines
#                         side by side (e.g. make e2e-engines E2E_ENGINES=webkit); WebKit under xvfb-run:
#                         Chromium runs every portable suite, Firefox and WebKit the ones that can
#                         differ between engines (E2E_CROSS)
#   make e2e-once         the suites that run once: on Playwright/Chromium, or with no browser (E2E_ONCE)
#   make e2e              both, in three lanes side by side (E2E_ALL_LANES)
#   make engines          the browsers: Debian's firefox-esr, webkit2gtk-driver, xvfb
#                         (and chromium), installed when root and absent
#
# Portable means every e2e/**/*.test.mjs but E2E_ONCE: a new suite written
# against e2e/driver runs in all three without a line here.

E2E_ENGINES ?= chromium firefox webkit
E2E_ONCE := e2e/faults.test.mjs e2e/nextjs.test.mjs e2e/nginx.test.mjs e2e/behind-nginx.test.mjs \
  e2e/docs.test.mjs e2e/package.test.mjs e2e/fresh-app.test.mjs e2e/standin.test.mjs
E2E_PORTABLE = $(filter-out $(E2E_ONCE),$(sort $(shell find e2e -name '*.test.mjs')))
# What can differ between engines, run in Firefox and WebKit too: the fetch
# contract (streams, aborts, bodies), the matrix's rows marked `every` (outage,
# F5, hang, slow API), the stored circuit across reloads and tabs, a corrupt
# stored payload, frames, the back/forward cache, the clock, a mutation right
# after F5, and the driver itself. FILE::PATTERN runs that file's tests whose
# names match (tools/test-files.mjs). The rest (coalescing, the 429 pauses,
# stale copies, idempotency, the storm chart) is decided in Go, the same in
# every engine: Chromium only.
E2E_CROSS := e2e/contract.test.mjs e2e/matrix.test.mjs e2e/driver/driver.test.mjs \
  e2e/circuit.test.mjs::F5\sstorm|stored\spayload|second\stab|TTL\sexpiry|gateway\sdies \
  e2e/respect.test.mjs::iframe|storage\sevent|back/forward|wall\sclock|after\sF5

# MiniBrowser needs an X display; 24-bit, so its screenshots look like the others'.
XVFB_RUN := xvfb-run -a -s "-screen 0 1280x1024x24"

.PHONY: engines e2e-engines e2e-once

engines: chromium
	@missing=""; \
	[ -x $(FIREFOX) ] || missing="$$missing firefox-esr"; \
	[ -x $(WEBKIT_WEBDRIVER) ] || missing="$$missing webkit2gtk-driver"; \
	command -v xvfb-run >/dev/null && command -v xauth >/dev/null || missing="$$missing xvfb xauth"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else echo "missing:$$missing: run 'sudo apt-get install$$missing'" >&2; exit 1; fi; \
	fi

# The lanes run side by side (E2E_PARALLEL=0: one after another), each to
# its end, its output in build/e2e/<lane>.log, shown in order when all are
# done; the target fails if any lane failed. A lane is runs joined by "+",
# one after another: an engine's suites, "once" (E2E_ONCE in Chromium), or
# "matrix" (the matrix in Chromium; without a matrix run, the chromium run
# has it).
E2E_PARALLEL ?= 1
E2E_LANES ?= $(E2E_ENGINES)
E2E_RUN = node tools/test-files.mjs $$run --test-concurrency=1 \
  $$(if [ $$run = chromium ]; then echo $(if $(findstring matrix,$(E2E_LANES)),$(filter-out e2e/matrix.test.mjs,$(E2E_PORTABLE)),$(E2E_PORTABLE)); else echo "$(E2E_CROSS)"; fi)
e2e-engines: build engines
	@mkdir -p build/e2e; for lane in $(E2E_LANES); do \
	  ( start=$$(date +%s); rc=0; \
	    for run in $$(echo $$lane | tr + ' '); do \
	      case $$run in \
	        once) node tools/test-files.mjs e2e-once --test-concurrency=1 $(E2E_ONCE);; \
	        matrix) node tools/test-files.mjs matrix --test-concurrency=1 e2e/matrix.test.mjs;; \
	        webkit) E2E_ENGINE=webkit $(XVFB_RUN) $(E2E_RUN);; \
	        *) E2E_ENGINE=$$run $(E2E_RUN);; \
	      esac || rc=1; \
	    done > build/e2e/$$lane.log 2>&1; \
	    echo "$$rc $$(( $$(date +%s) - start ))" > build/e2e/$$lane.rc ) & \
	  [ "$(E2E_PARALLEL)" = 1 ] || wait; \
	done; wait; \
	failed=""; for lane in $(E2E_LANES); do \
	  read rc secs < build/e2e/$$lane.rc; cat build/e2e/$$lane.log; \
	  echo "e2e lane $$lane: exit $$rc after $$secs s"; \
	  [ "$$rc" = 0 ] || failed="$$failed $$lane"; \
	done; \
	if [ -n "$$failed" ]; then echo "e2e: FAILED in:$$failed (logs in build/e2e/)" >&2; exit 1; fi

# All of e2e/, in three lanes side by side (about equal in length; four lanes
# kept both cores busy for minutes and timing-sensitive tests failed): the
# suites run once, then Chromium's portable suites; the matrix in Chromium;
# Firefox, then WebKit.
E2E_ALL_LANES ?= once+chromium matrix firefox+webkit
e2e: build build-faultwasm nextjs-build fresh-app-build engines nginx
	@$(MAKE) --no-print-directory e2e-engines E2E_LANES="$(E2E_ALL_LANES)"

e2e-once: build build-faultwasm nextjs-build chromium nginx
	node tools/test-files.mjs e2e-once --test-concurrency=1 $(E2E_ONCE)
