#!/usr/bin/env bash
# Measures syumai/workers (its handler and fetch client) against the edge's
# own glue and a pure JS worker, in the workerd of package.json: wasm size,
# cold start, per-request latency (docs/edge.md, "Why own glue").
# Nothing of syumai/workers is kept in this repository: the module is fetched
# into a throwaway directory, which this script fills and measures.
#   edge/syumai-compare.sh [DIR] [ROUNDS]   (defaults: /tmp/syumai-compare, 2000)
set -euo pipefail
VERSION=v0.33.0
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-/tmp/syumai-compare}
ROUNDS=${2:-2000}
SAFEJS=$(awk '/hack-pad\/safejs/ {print $2}' "$ROOT/edge/go.mod")
mkdir -p "$DIR/m/syumai" "$DIR/m/syumaihello" "$DIR/m/own" "$DIR/run"/{js,own,syumai,syumaihello}
cd "$DIR/m"

cat > syumaihello/main.go <<'E'
// syumai/workers with only its handler: any GET answers "ok".
package main

import (
	"io"
	"net/http"

	"github.com/syumai/workers"
)

func main() {
	workers.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
}
E
cat > syumai/main.go <<'E'
// syumai/workers, handler and fetch client: /hello answers "ok"; /up?u=URL
// fetches URL with fetch.NewClient() (no redirect followed).
package main

import (
	"io"
	"net/http"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare/fetch"
)

func main() {
	http.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	http.HandleFunc("/up", func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), "GET", r.URL.Query().Get("u"), nil)
		res, err := fetch.NewClient().HTTPClient(fetch.RedirectModeManual).Do(req)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer res.Body.Close()
		w.WriteHeader(res.StatusCode)
		io.Copy(w, res.Body)
	})
	workers.Serve(nil)
}
E
cat > own/main.go <<'E'
// The edge's own glue reduced to a hello: one Go instance per isolate, a
// synchronous call into Go per request (safejs).
package main

import "github.com/hack-pad/safejs"

func main() {
	f, _ := safejs.FuncOf(func(safejs.Value, []safejs.Value) any { return "ok" })
	_ = safejs.Global().Set("hello", f.Value())
	select {}
}
E
[ -f go.mod ] || go mod init measure >/dev/null 2>&1
go get "github.com/syumai/workers@$VERSION" "github.com/hack-pad/safejs@$SAFEJS" >/dev/null 2>&1
go mod tidy >/dev/null 2>&1
for p in syumai syumaihello own; do
  GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o "out/$p.wasm" "./$p"
done
# syumai's generated JS glue (worker.mjs, runtime.mjs, its wasm_exec.js).
go run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o gen >/dev/null
for p in syumai syumaihello; do cp gen/worker.mjs gen/runtime.mjs gen/wasm_exec.js "$DIR/run/$p/" && cp "out/$p.wasm" "$DIR/run/$p/app.wasm"; done
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$DIR/run/own/" && cp out/own.wasm "$DIR/run/own/own.wasm"

cat > "$DIR/run/own/own.mjs" <<'E'
import "./wasm_exec.js";
import wasm from "./own.wasm";
let hello, starting;
async function start() {
  const go = new Go();
  const inst = await WebAssembly.instantiate(wasm, go.importObject);
  go.run(inst);
  hello = globalThis.hello;
}
export default {
  async fetch() {
    if (!hello) await (starting ??= start());
    return new Response(hello(), { headers: { "content-type": "text/plain" } });
  },
};
E
cat > "$DIR/run/js/js.mjs" <<'E'
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/up") return fetch(url.searchParams.get("u"), { redirect: "manual" });
    return new Response("ok", { headers: { "content-type": "text/plain" } });
  },
};
E
cd "$ROOT"
node edge/syumai-compare.mjs "$DIR/run" "$ROUNDS"
