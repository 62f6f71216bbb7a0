"use client";

import { useState } from "react";
import type { TypedData } from "viem";
import { useConnection, useSignTypedData, useSwitchChain } from "wagmi";
import { formatCountdown, shortHex } from "@/lib/client/format";
import { useNetwork } from "@/lib/client/network-context";
import { NETWORK_LABELS } from "@/lib/client/public-network-config";
import { useNow } from "@/lib/client/use-now";
import { isUserRejection, walletErrorMessage } from "@/lib/client/wallet-errors";
import type { ApprovalRequest, SignInRequest } from "@/lib/stream";
import { bodyTypeOf, describeBodyType } from "@/lib/x402/request-body";
import { networkName } from "./network-name";
import { SignInInstead } from "./sign-in-instead";

export type ApprovalCardProps = {
  approval: ApprovalRequest;
  serviceName: string;
  decision: "approved" | "rejected" | undefined;
  /** False while any request runs: one request at a time. */
  canAct: boolean;
  onSigned: (signature: `0x${string}`) => void;
  onReject: () => void;
  /** The service's sign-in-with-x offer, when it has one: sign in instead of paying again. */
  signIn?: SignInRequest;
  onSignedIn?: (signature: `0x${string}`) => void;
};

type SignState = { kind: "idle" } | { kind: "signing" } | { kind: "declined" } | { kind: "error"; message: string };

/**
 * The quote the agent froze for "my wallet", with Approve (sign the exact EIP-712 typed data
 * in the connected wallet) and Reject (sign nothing, tell the agent).
 */
export function ApprovalCard({ approval, serviceName, decision, canAct, onSigned, onReject, signIn, onSignedIn }: ApprovalCardProps) {
  const network = useNetwork();
  const connection = useConnection();
  const { signTypedDataAsync } = useSignTypedData();
  const switchChain = useSwitchChain();
  const [signState, setSignState] = useState<SignState>({ kind: "idle" });
  const open = decision === undefined;
  const now = useNow(open, 500);
  const secondsLeft = Math.max(0, approval.expiresAt - Math.floor(now / 1000));
  const expired = secondsLeft <= 0;

  const signer = approval.typedData.message.from;
  const chainId = approval.typedData.domain.chainId;
  const wrongAccount = connection.address !== undefined && connection.address.toLowerCase() !== signer.toLowerCase();
  const wrongChain = connection.status === "connected" && connection.chainId !== chainId;
  const headingId = `approval-${approval.typedData.message.nonce.slice(2, 12)}`;

  async function approve() {
    setSignState({ kind: "signing" });
    const { typedData } = approval;
    try {
      const signature = await signTypedDataAsync({
        domain: { ...typedData.domain, verifyingContract: typedData.domain.verifyingContract as `0x${string}` },
        types: typedData.types as unknown as TypedData,
        primaryType: typedData.primaryType,
        message: {
          ...typedData.message,
          // JSON carries these uint256 values as decimal strings; wallets want integers.
          value: BigInt(typedData.message.value),
          validAfter: BigInt(typedData.message.validAfter),
          validBefore: BigInt(typedData.message.validBefore),
        },
      });
      setSignState({ kind: "idle" });
      onSigned(signature);
    } catch (error) {
      setSignState(isUserRejection(error) ? { kind: "declined" } : { kind: "error", message: walletErrorMessage(error) });
    }
  }

  let blocker: string | undefined;
  if (connection.status !== "connected") blocker = `Connect the wallet ${shortHex(signer)} to approve this payment.`;
  else if (wrongAccount) blocker = `The connected wallet is ${shortHex(connection.address ?? "")}, but this quote must be signed by ${shortHex(signer)}.`;
  else if (wrongChain) blocker = `Your wallet is on another network. Switch to ${NETWORK_LABELS[network.network]} to sign.`;

  if (decision !== undefined) {
    // Decided: one line is enough; the payment card above shows what happened next.
    return (
      <p className="approval-card approval-card--decided" data-testid="approval-card" data-decision={decision}>
        {decision === "approved"
          ? `You approved ${approval.amount} USDC to ${serviceName}; your signature was sent.`
          : `You declined ${approval.amount} USDC to ${serviceName}. Nothing was signed.`}
      </p>
    );
  }

  return (
    <section className="approval-card" data-testid="approval-card" data-decision="open" aria-labelledby={headingId}>
      <h3 id={headingId} className="approval-card__title">
        Approve payment of {approval.amount} USDC?
      </h3>
      <dl className="facts">
        <div>
          <dt>Amount</dt>
          <dd data-testid="approval-amount">{approval.amount} USDC</dd>
        </div>
        <div>
          <dt>Service</dt>
          <dd>{serviceName}</dd>
        </div>
        <div>
          <dt>Payee</dt>
          <dd title={approval.payTo}>{shortHex(approval.payTo)}</dd>
        </div>
        <div>
          <dt>Network</dt>
          <dd>{networkName(approval.network, network)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd data-testid="approval-expiry">{expired ? "Expired" : `in ${formatCountdown(secondsLeft)}`}</dd>
        </div>
      </dl>
      <p className="approval-card__resource">
        <span className="muted">Buys </span>
        <code>
          {approval.method} {approval.resource}
        </code>
      </p>
      {approval.body !== undefined ? (
        <p className="approval-card__resource" data-testid="approval-body">
          {/* The signature covers how the body is sent as well as what it says, so both show. */}
          <span className="muted">with the {bodyTypeLabel(approval.contentType)} body </span>
          <code>{approval.body}</code>
        </p>
      ) : null}

      {expired ? (
        <p className="approval-card__outcome">This quote has expired. Ask again for a fresh quote.</p>
      ) : (
        <>
          {blocker ? <p className="approval-card__blocker">{blocker}</p> : null}
          <div className="approval-card__actions">
            {wrongChain && !wrongAccount ? (
              <button
                type="button"
                className="button"
                disabled={switchChain.isPending}
                onClick={() => switchChain.mutate({ chainId })}
              >
                {switchChain.isPending ? "Switching…" : `Switch to ${NETWORK_LABELS[network.network]}`}
              </button>
            ) : null}
            <button
              type="button"
              className="button button--primary"
              data-testid="approve-button"
              disabled={!canAct || blocker !== undefined || signState.kind === "signing"}
              onClick={() => void approve()}
            >
              {signState.kind === "signing" ? "Waiting for your wallet…" : `Approve ${approval.amount} USDC`}
            </button>
            <button
              type="button"
              className="button"
              data-testid="reject-button"
              disabled={!canAct || signState.kind === "signing"}
              onClick={onReject}
            >
              Reject
            </button>
            {signIn && onSignedIn && signIn.expiresAt > Math.floor(now / 1000) ? (
              <SignInInstead signIn={signIn} enabled={canAct && blocker === undefined && signState.kind !== "signing"} onSignedIn={onSignedIn} />
            ) : null}
          </div>
          {signState.kind === "declined" ? (
            <p className="approval-card__note" data-testid="wallet-declined">
              You declined in your wallet. Nothing was signed or sent; you can approve or reject above.
            </p>
          ) : null}
          {signState.kind === "error" ? (
            <p className="approval-card__note approval-card__note--error">The wallet could not sign: {signState.message}</p>
          ) : null}
        </>
      )}
    </section>
  );
}

/** "JSON", "form (form-data)" or "text"; the raw type for one this page does not know. */
function bodyTypeLabel(contentType: string | undefined): string {
  const type = bodyTypeOf(contentType);
  return type ? describeBodyType(type) : (contentType ?? "");
}
