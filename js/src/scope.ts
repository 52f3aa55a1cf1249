// Which requests the circuit guards: data-scope, resolved against the page
// once, at start, into absolute URL prefixes that the Go core
// (circuit.Policy.InScope) and the pre-ready gate (inScope) match.

/**
 * The prefixes of data-scope ("/api/, https://api.example.com"): empty means the page's own origin, and a bare
 * origin guards every path on it. `ignored` hears each entry that is not an http(s) URL or path (with its URL, when
 * it is one).
 */
export function scopePrefixes(attr: string | undefined, base: string, ignored?: (entry: string, url: URL | null) => void): string[] {
  const prefixes: string[] = [];
  const entries = (attr ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  if (entries.length === 0) entries.push(new URL(base).origin);
  for (const entry of entries) {
    let u: URL | null = null;
    try {
      u = new URL(entry, base);
    } catch {
      // not a URL: ignored below
    }
    if (u && (u.protocol === "http:" || u.protocol === "https:")) prefixes.push(u.origin + u.pathname);
    else ignored?.(entry, u);
  }
  if (prefixes.length === 0) prefixes.push(new URL(base).origin + "/");
  return prefixes;
}

export function inScope(url: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => url.startsWith(p));
}
