import assert from "node:assert/strict";
import { test } from "node:test";
import type { Exports } from "./abi.gen.js";
import { bind } from "./engine.js";

/** Exports over a real WebAssembly.Memory that grow it the way Go's allocator does. */
function fakeExports() {
  const mem = new WebAssembly.Memory({ initial: 1 });
  let buf = 1024;
  let bufCap = 8192;
  let top = buf + bufCap;
  const frames: string[] = [];
  const frame = (n: number) => new TextDecoder().decode(new Uint8Array(mem.buffer, buf, n));
  const alloc = (n: number) => {
    const at = top;
    top += n;
    const need = Math.ceil(top / 65536) - mem.buffer.byteLength / 65536;
    if (need > 0) mem.grow(need); // detaches every view taken before
    return at;
  };
  const ex = {
    mem,
    gc_buf: () => buf,
    gc_reserve: (n: number) => {
      if (n > bufCap) {
        buf = alloc(n);
        bufCap = n;
      }
      return buf;
    },
    gc_out: () => 16,
    gc_quiet: () => 0,
    gc_quiet_statuses: () => 0,
    gc_begin: (_now: number, n: number) => {
      frames.push(frame(n));
      return 1;
    },
    gc_body: (n: number) => alloc(n),
    gc_idem_begin: () => -7,
    gc_message_len: () => 0,
  } as unknown as Exports;
  return { ex, frames };
}

test("a request frame is never cut: two URLs that differ after 8 KiB reach Go whole", () => {
  const { ex, frames } = fakeExports();
  const e = bind(ex, new Promise(() => {}));
  const long = "http://app.test/api/x?q=" + "a".repeat(9000);
  e.begin(0, "GET", long + "1", "");
  e.begin(0, "GET", long + "2", "x-big: " + "é".repeat(5000) + "\n");
  assert.equal(frames[0], `GET\n${long}1\n`);
  assert.equal(frames[1], `GET\n${long}2\nx-big: ${"é".repeat(5000)}\n`);
});

test("views over Go's memory are taken after the calls that can grow it", () => {
  const { ex, frames } = fakeExports();
  const e = bind(ex, new Promise(() => {}));
  e.begin(0, "GET", "http://app.test/a", "");
  e.idemBegin(0, "POST", "http://app.test/b", "", new Uint8Array(200_000)); // grows memory for the body
  e.begin(0, "GET", "http://app.test/c", "");
  assert.deepEqual(frames, ["GET\nhttp://app.test/a\n", "GET\nhttp://app.test/c\n"]);
});

test("the quiet reads follow Go's memory when it grows", () => {
  const { ex } = fakeExports();
  const e = bind(ex, new Promise(() => {}));
  new Int32Array(ex.mem.buffer, 0, 1)[0] = 3;
  assert.equal(e.quiet(), 3);
  e.idemBegin(0, "POST", "http://app.test/b", "", new Uint8Array(200_000)); // grows memory: the old views are detached
  new Int32Array(ex.mem.buffer, 0, 1)[0] = 1;
  assert.equal(e.quiet(), 1);
});
