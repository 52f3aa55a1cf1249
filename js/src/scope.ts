// Which requests the circuit guards. data-scope entries are resolved against
// the page once, at start, into absolute URL prefixes; the Go core
// (circuit.Policy.InScope) and the pre-ready gate below both match by prefix.

/**
 * Resolves data-scope ("/api/, https://api.example.com") against `base`.
 * Empty means the page's own origin. A bare origin guards every path on it.
 */
export function resolveScope(attr: string | undefined, base: string): { prefixes: string[]; problems: string[] } {
  const prefixes: string[] = [];
  const problems: string[] = [];
  const entries = (attr ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  if (entries.length === 0) entries.push(new URL(base).origin);
  for (const entry of entries) {
    let u: URL;
    try {
      u = new URL(entry, base);
    } catch {
      problems.push(`data-scope: ${JSON.stringify(entry)} is not a URL or path; ignored`);
      continue;
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") {
      problems.push(`data-scope: ${JSON.stringify(entry)} is not http(s); ignored`);
      continue;
    }
    prefixes.push(u.origin + u.pathname);
  }
  if (prefixes.length === 0) prefixes.push(new URL(base).origin + "/");
  return { prefixes, problems };
}

export function inScope(url: string, prefixes: readonly string[]): boolean {
  for (const p of prefixes) if (url.startsWith(p)) return true;
  return false;
}
