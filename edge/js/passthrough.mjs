// A plain JS worker that forwards every request to the upstream: the
// baseline the edge's cache hit is measured against.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const upstream = JSON.parse(env.EDGE_CONFIG).upstream.replace(/\/$/, "");
    return fetch(new Request(upstream + url.pathname + url.search, request));
  },
};
