/** A long-lived signal (one per component, as apps keep them) that counts the listeners added to it. */
export function countedSignal(): { ac: AbortController; added: () => number } {
  const ac = new AbortController();
  let added = 0;
  const add = ac.signal.addEventListener.bind(ac.signal);
  ac.signal.addEventListener = (...args: Parameters<AbortSignal["addEventListener"]>) => void (added++, add(...args));
  return { ac, added: () => added };
}
