// A copy of a response's body taken as its reader reads it, for the stale
// copies Go keeps. Response.clone() would tee the body: the copy's branch
// then reads on by itself, so a caller that cancels does not stop the
// download — the connection stays held until the copy has read everything
// (an event stream never ends) — and a tee branch's cancel() waits for the
// other branch (WebKit's never resolves). Here the reader's reads are the
// only ones: nothing is read ahead of it, its cancel() reaches the network
// at once, and the copy is dropped.

/**
 * A body nobody reads to its end nor cancels (the app looked at the status
 * only) ends its copy when it is collected, as fetch lets its connection go
 * then: Go holds the request's ticket until it hears of the copy.
 */
const unread = typeof FinalizationRegistry === "function" ? new FinalizationRegistry<() => void>((end) => end()) : null;

/** Statuses whose body is null by definition: the copy is empty. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const EVENT_STREAM = /^\s*text\/event-stream\b/i;

/**
 * The Response to hand out in place of `res` (dressed as it), its body read
 * through a copy. `done` is called once: with the bytes when the body was
 * read to its end within `limit`, else with null — an event stream or a
 * declared length over the limit (not copied at all: `res` itself is handed
 * out), a body cancelled, errored or longer than the limit.
 */
export function copyAsRead(res: Response, limit: number, done: (body: ArrayBuffer | null) => void): Response {
  const source = res.body;
  if (source === null || NULL_BODY.has(res.status)) {
    done(new ArrayBuffer(0));
    return res;
  }
  const declared = res.headers.get("content-length");
  if (EVENT_STREAM.test(res.headers.get("content-type") ?? "") || (declared !== null && !(Number(declared) <= limit))) {
    done(null);
    return res;
  }

  let copy: Uint8Array | null = new Uint8Array(Math.min(Number(declared ?? 0) || 16_384, limit));
  let size = 0;
  const end = (body: ArrayBuffer | null) => {
    if (copy === null) return;
    copy = null;
    done(body);
  };
  const append = (chunk: Uint8Array) => {
    if (copy === null) return;
    if (size + chunk.byteLength > limit) return end(null);
    if (size + chunk.byteLength > copy.byteLength) {
      const grown = new Uint8Array(Math.min(limit, Math.max(copy.byteLength * 2, size + chunk.byteLength)));
      grown.set(copy.subarray(0, size));
      copy = grown;
    }
    copy.set(chunk, size); // before the reader gets the chunk: what it does with it cannot touch the copy
    size += chunk.byteLength;
  };

  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        reader ??= source.getReader();
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          end(null);
          c.error(e); // the reader gets the network's own error (an abort's reason)
          return;
        }
        if (r.done) {
          if (copy !== null) end((size === copy.byteLength ? copy : copy.slice(0, size)).buffer as ArrayBuffer);
          c.close();
          return;
        }
        append(r.value);
        c.enqueue(r.value);
      },
      cancel(reason) {
        end(null);
        return reader ? reader.cancel(reason) : source.cancel(reason);
      },
    },
    { highWaterMark: 0 }, // a read only when the reader reads
  );
  unread?.register(body, () => end(null));
  try {
    return dressed(new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers }), res);
  } catch {
    end(null); // a status or status text the constructor refuses: no copy, the answer as it came
    return res;
  }
}

/** The body-reading methods of a Response (bytes() where the engine has it). */
const CONSUMERS = ["arrayBuffer", "blob", "bytes", "formData", "json", "text"] as const;

/**
 * r, seen as `like`: a constructed Response has no url, is never
 * redirected, and has type "default" and mutable headers; and its body
 * methods reject with an error of their own when its stream errors (Chromium:
 * a TypeError; Firefox: a new AbortError), where fetch's reject with the
 * network's error — an abort's reason. Here they read the stream, which
 * gives that error, and parse as the engine does. Its clones too.
 */
function dressed(r: Response, like: Response): Response {
  const props: PropertyDescriptorMap = {
    url: { value: like.url },
    redirected: { value: like.redirected },
    type: { value: like.type },
    headers: { value: like.headers },
    clone: { value: () => dressed(Response.prototype.clone.call(r), like) },
  };
  for (const name of CONSUMERS) {
    const parse = (Response.prototype as unknown as Record<string, ((this: Response) => Promise<unknown>) | undefined>)[name];
    if (typeof parse === "function") props[name] = { value: () => readWhole(r).then((whole) => parse.call(new Response(whole, { headers: like.headers }))) };
  }
  Object.defineProperties(r, props);
  return r;
}

/** r's whole body; rejects as the body methods do (used or locked: a TypeError) and with the stream's own error. */
async function readWhole(r: Response): Promise<Blob> {
  if (r.bodyUsed) throw new TypeError("Body has already been consumed.");
  const reader = (r.body as ReadableStream<Uint8Array<ArrayBuffer>>).getReader();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return new Blob(parts);
    parts.push(value);
  }
}
