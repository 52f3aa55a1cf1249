// Listening on 127.0.0.1 for a test: the one way the suites' own servers
// start and stop (the fake APIs, the file server, the injecting proxy, the
// nginx upstream).

import { once } from "node:events";

/**
 * Starts server on a free loopback port. stop() ends its open connections
 * too (a browser's keep-alive ones would hold close() up) and resolves once
 * it is closed.
 */
export async function listenLoopback(server) {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
