// Chromium (Debian's) through playwright-core over CDP.

import { chromium } from "playwright-core";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launch() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
  return {
    version: browser.version(),
    newContext: async () => {
      const context = await browser.newContext();
      return { newPage: async () => wrap(await context.newPage(), context), close: () => context.close() };
    },
    close: () => browser.close(),
  };
}

function wrap(page, context) {
  return {
    /**
     * DevTools' network throttling (Network.emulateNetworkConditions: latency
     * in ms, throughputs in bytes/s) for this tab, from now on: it holds
     * across reloads and navigations, as it does in DevTools.
     */
    throttle: async (conditions) => {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", { offline: false, ...conditions });
    },
    goto: (url) => page.goto(url).then(() => {}),
    reload: () => page.reload().then(() => {}),
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    waitForFunction: (fn, arg, timeout) => page.waitForFunction(fn, arg, { timeout }).then((h) => h.dispose()),
    click: (selector) => page.click(selector),
    screenshot: (path) => page.screenshot({ path }).then(() => {}),
    close: () => page.close(),
  };
}
