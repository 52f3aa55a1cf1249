// Which requests the circuit guards. data-scope entries are resolved against
// the page once, at start, into absolute URL prefixes; the Go core
// (circuit.Policy.InScope) and the pre-ready gate below both match by prefix.

/**
 * The absolute URL prefixes of data-scope ("/api/, https://api.example.com")
 * against `base`. Empty means the page's own origin. A bare origin guards
 * every path on it. `ignored` hears each entry that is not an http(s) URL or
 * path (with its URL, when it is one).
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

/** scopePrefixes, and a warning for each entry ignored. */
export function resolveScope(attr: string | undefined, base: string): { prefixes: string[]; problems: string[] } {
  const problems: string[] = [];
  const prefixes = scopePrefixes(attr, base, (entry, u) => problems.push(`data-scope: ${JSON.stringify(entry)} is not ${u ? "http(s)" : "a URL or path"}; ignored`));
  return { prefixes, problems };
}

export function inScope(url: string, prefixes: readonly string[]): boolean {
  for (const p of prefixes) if (url.startsWith(p)) return true;
  return false;
}
