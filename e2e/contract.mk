# The fetch contract suite (e2e/contract.test.mjs): gatewayCircuit.fetch with
# the circuit closed against native fetch, in Chromium. `make e2e` runs it
# with the other e2e files; this target runs it alone.
#
#   make e2e-contract                         every case and scenario
#   make e2e-contract CONTRACT_ONLY=signals   the cases of one group (or id)
#
# Its fixture server serves dist/ itself, so the demo gateway is not needed.
# build/contract/report.json has every failing case with what each side saw.

CONTRACT_ONLY ?=

.PHONY: e2e-contract

e2e-contract: dist/manifest.json chromium
	CONTRACT_ONLY='$(CONTRACT_ONLY)' node tools/test-files.mjs contract --test-concurrency=1 e2e/contract.test.mjs
