"use client";

import dynamic from "next/dynamic";
import { activeGrantFor, useGrantSession } from "@/lib/client/grant-session";

// Loaded when the panel shows them, not with the page: the form's signing, approval and
// typed-data checks are more script than every other part of the side panel together.
const GrantForm = dynamic(() => import("./grant-form").then((module) => module.GrantForm), {
  ssr: false,
  loading: () => <p className="small muted">…</p>,
});
const GrantStatus = dynamic(() => import("./grant-status").then((module) => module.GrantStatus), {
  ssr: false,
  loading: () => <p className="small muted">…</p>,
});

export type GrantPanelProps = {
  walletAddress: `0x${string}` | undefined;
  /** Why the wallet cannot sign now (another network), if it cannot. */
  blocker: string | undefined;
  payerIsWallet: boolean;
  refreshKey: number;
};

/** The budget grant of the connected wallet: the active one, or the form that signs one. */
export function GrantPanel({ walletAddress, blocker, payerIsWallet, refreshKey }: GrantPanelProps) {
  const session = useGrantSession();
  if (!walletAddress) {
    return <p className="small muted">Connect your wallet to let the agent spend a budget from it without asking each time.</p>;
  }
  const active = activeGrantFor(session, walletAddress);
  if (active) return <GrantStatus grant={active} refreshKey={refreshKey} payerIsWallet={payerIsWallet} />;
  return (
    <>
      {session?.status === "ended" ? (
        <p className="small" role="status" data-testid="grant-ended">
          {session.message}
        </p>
      ) : null}
      <GrantForm walletAddress={walletAddress} blocker={blocker} />
    </>
  );
}
