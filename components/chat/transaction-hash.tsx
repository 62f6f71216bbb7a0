import { shortHex, transactionLink } from "@/lib/client/format";
import { useNetwork } from "@/lib/client/network-context";

/**
 * A transaction hash: linked to the explorer when one is known (the event's link first, then
 * the network's explorer), and shown in full as plain text on the local chain, which has none.
 */
export function TransactionHash({
  hash,
  explorerUrl,
  compact = false,
}: {
  hash: string;
  explorerUrl?: string | undefined;
  /** Shorten the plain hash too (narrow places); the full hash stays in the title and a data attribute. */
  compact?: boolean;
}) {
  const network = useNetwork();
  const href = transactionLink(hash, explorerUrl, network.explorerUrl);
  if (href) {
    return (
      <a className="tx-hash" data-testid="tx-hash" data-tx-hash={hash} href={href} target="_blank" rel="noopener noreferrer" title={hash}>
        {shortHex(hash, 10, 8)}
      </a>
    );
  }
  return (
    <code className="tx-hash tx-hash--plain" data-testid="tx-hash" data-tx-hash={hash} title={hash}>
      {compact ? shortHex(hash, 10, 8) : hash}
    </code>
  );
}
