# Debian's nginx as the real API gateway of the e2e tests (e2e/nginx.mjs:
# generated config, run unprivileged on 127.0.0.1, access log = ground truth).
#
#   make nginx       installs Debian's nginx when missing (as root), like chromium
#   make e2e-nginx   the harness's own test (e2e/nginx.test.mjs); make e2e runs it too

NGINX ?= /usr/sbin/nginx

.PHONY: nginx e2e-nginx

nginx:
	@if [ ! -x $(NGINX) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's nginx"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null; \
	  else echo "nginx is missing: run 'sudo apt-get install nginx'" >&2; exit 1; fi; \
	fi

e2e-nginx: nginx node_modules/.stamp
	NGINX=$(NGINX) node tools/test-files.mjs nginx e2e/nginx.test.mjs

# make e2e runs every e2e/*.test.mjs, the nginx ones among them.
e2e: nginx
