/**
 * Whether a purchase reads the payer's balance beside its unpaid request, before it knows what
 * the service asks. That read saves a round trip for a payment from the wallet, and is wasted
 * work (a JSON-RPC call, about a millisecond of this process's CPU, during the request) for a
 * voucher, which spends a channel's deposit, not the wallet. So this instance remembers which
 * URLs last chose a channel, and reads the balance for those only once the option is known.
 *
 * A hint, never a check: a URL whose service changed its offer is read one round trip later,
 * and the balance is checked as before whenever the option spends from the wallet. Bounded.
 */
const channelPaid = new Set<string>();
const MAX_REMEMBERED = 1_000;

/** A URL as this instance's hints know it: its origin and path (a query varies per call, the offer does not). */
export function urlKeyOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

/**
 * The payer's balance, read once: at once (beside the unpaid request) unless this URL's last
 * purchase here paid through a channel, else when first asked for.
 */
export function payerBalance(read: () => Promise<bigint>, url: string): () => Promise<bigint> {
  let started: Promise<bigint> | undefined;
  const start = () => {
    started ??= read();
    // Read ahead, it may never be asked for: its failure is reported when it is.
    started.catch(() => undefined);
    return started;
  };
  if (!channelPaid.has(urlKeyOf(url))) start();
  return start;
}

/** Remembers what this URL's chosen option spends from. */
export function rememberChosenOption(url: string, paysThroughChannel: boolean): void {
  const key = urlKeyOf(url);
  if (!paysThroughChannel) {
    channelPaid.delete(key);
    return;
  }
  if (channelPaid.size >= MAX_REMEMBERED) channelPaid.clear();
  channelPaid.add(key);
}
