/** Small display helpers shared by the chat components. */

/** `0x1234…abcd`: enough to recognise an address or hash at a glance. */
export function shortHex(value: string, head = 6, tail = 4): string {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

/** Seconds as `4.2 s` under a minute, `1 min 05 s` above. */
export function formatElapsed(milliseconds: number): string {
  const safe = Math.max(0, milliseconds);
  if (safe < 60_000) return `${(safe / 1000).toFixed(1)} s`;
  const minutes = Math.floor(safe / 60_000);
  const seconds = Math.floor((safe % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, "0")} s`;
}

/** A countdown such as `4:59`, from whole seconds. */
export function formatCountdown(seconds: number): string {
  const safe = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(safe / 60)}:${String(safe % 60).padStart(2, "0")}`;
}

/** Returns the URL when it is absolute http(s), otherwise undefined: the only links we render. */
export function safeHttpUrl(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The host of a resource URL for display, or the input when it is not a URL. */
export function hostOf(value: string): string {
  try {
    return new URL(value).host;
  } catch {
    return value;
  }
}

/** The explorer link of a transaction: the event's own link first, then the network's explorer. */
export function transactionLink(txHash: string, eventExplorerUrl: string | undefined, networkExplorerUrl: string | null | undefined): string | undefined {
  const fromEvent = safeHttpUrl(eventExplorerUrl);
  if (fromEvent) return fromEvent;
  const base = safeHttpUrl(networkExplorerUrl);
  return base ? `${base.replace(/\/+$/, "")}/tx/${txHash}` : undefined;
}
