"use client";

import { useState } from "react";
import { useConnection, useSignTypedData, useSwitchChain } from "wagmi";
import { formatCountdown, shortHex } from "@/lib/client/format";
import { useNetwork } from "@/lib/client/network-context";
import { describePermit2Allowance, neededPermit2Allowance, parsePermit2Allowance } from "@/lib/client/permit2-allowance";
import { useNow } from "@/lib/client/use-now";
import { usePermit2Approve } from "@/lib/client/use-permit2-approve";
import { isUserRejection, walletErrorMessage } from "@/lib/client/wallet-errors";
import { formatUsdc } from "@/lib/money";
import type { ApprovalRequest, PaymentStatus, SignInRequest } from "@/lib/stream";
import { approvalKey, approvalSigner, walletTypedDataOf } from "@/lib/x402/approval-typed-data";
import { bodyTypeOf, describeBodyType } from "@/lib/x402/request-body";
import { networkName } from "./network-name";
import { SignInInstead } from "./sign-in-instead";

export type ApprovalCardProps = {
  approval: ApprovalRequest;
  serviceName: string;
  decision: "approved" | "rejected" | undefined;
  /** Where the payment got to since (its card's status): what the approval led to. */
  outcome?: PaymentStatus;
  /** What was actually paid, once the chain shows it (a metered payment's settled amount). */
  paidAmount?: string;
  /** False while any request runs: one request at a time. */
  canAct: boolean;
  onSigned: (signature: `0x${string}`) => void;
  onReject: () => void;
  /** The service's sign-in-with-x offer, when it has one: sign in instead of paying again. */
  signIn?: SignInRequest;
  onSignedIn?: (signature: `0x${string}`) => void;
};

type SignState = { kind: "idle" } | { kind: "signing" } | { kind: "declined" } | { kind: "error"; message: string };
/** The Permit2 approve a metered payment may need first: not asked, sending, mined. */
type Permit2State = { kind: "needed" } | { kind: "sending" } | { kind: "done" } | { kind: "declined" } | { kind: "error"; message: string };

/**
 * The quote the agent froze for "my wallet", with Approve (sign the exact EIP-712 typed data
 * in the connected wallet) and Reject (sign nothing, tell the agent). A metered (`upto`) quote
 * is a ceiling: the wallet signs a Permit2 permit for at most that, after an ERC-20 approve of
 * Permit2 when the server found the wallet's allowance short: for the ceiling, or the larger
 * amount the person types, never unlimited (lib/client/permit2-allowance.ts says why).
 */
export function ApprovalCard({ approval, serviceName, decision, outcome, paidAmount, canAct, onSigned, onReject, signIn, onSignedIn }: ApprovalCardProps) {
  const network = useNetwork();
  const connection = useConnection();
  const { signTypedDataAsync } = useSignTypedData();
  const approvePermit2 = usePermit2Approve();
  const [permit2, setPermit2] = useState<Permit2State>({ kind: approval.permit2Approval ? "needed" : "done" });
  const permit2Needed = neededPermit2Allowance(approval);
  const [allowanceText, setAllowanceText] = useState(permit2Needed === undefined ? "" : formatUsdc(permit2Needed));
  const allowance = permit2Needed === undefined ? undefined : parsePermit2Allowance(allowanceText, permit2Needed);
  const switchChain = useSwitchChain();
  const [signState, setSignState] = useState<SignState>({ kind: "idle" });
  const open = decision === undefined;
  const now = useNow(open, 500);
  const secondsLeft = Math.max(0, approval.expiresAt - Math.floor(now / 1000));
  const expired = secondsLeft <= 0;

  const signer = approvalSigner(approval) ?? "";
  const chainId = approval.typedData.domain.chainId;
  const wrongAccount = connection.address !== undefined && connection.address.toLowerCase() !== signer.toLowerCase();
  const wrongChain = connection.status === "connected" && connection.chainId !== chainId;
  const headingId = `approval-${approvalKey(approval)}`;
  const metered = approval.scheme === "upto";
  const price = metered ? `up to ${approval.amount} USDC` : `${approval.amount} USDC`;

  async function approve() {
    setSignState({ kind: "signing" });
    try {
      const signature = await signTypedDataAsync(walletTypedDataOf(approval));
      setSignState({ kind: "idle" });
      onSigned(signature);
    } catch (error) {
      setSignState(isUserRejection(error) ? { kind: "declined" } : { kind: "error", message: walletErrorMessage(error) });
    }
  }

  /** The ERC-20 approve of Permit2 for the allowance shown (the ceiling unless the person typed more), mined before the permit is signed. */
  async function allowPermit2() {
    const needed = approval.permit2Approval;
    if (!needed || !allowance?.ok) return;
    setPermit2({ kind: "sending" });
    try {
      const ok = await approvePermit2({ token: needed.token as `0x${string}`, spender: needed.spender as `0x${string}`, amount: allowance.amount, chainId });
      setPermit2(ok ? { kind: "done" } : { kind: "error", message: "the approve transaction failed on chain" });
    } catch (error) {
      setPermit2(isUserRejection(error) ? { kind: "declined" } : { kind: "error", message: walletErrorMessage(error) });
    }
  }

  let blocker: string | undefined;
  if (connection.status !== "connected") blocker = `Connect the wallet ${shortHex(signer)} to approve this payment.`;
  else if (wrongAccount) blocker = `The connected wallet is ${shortHex(connection.address ?? "")}, but this quote must be signed by ${shortHex(signer)}.`;
  else if (wrongChain) blocker = `Your wallet is on another network. Switch to ${network.label} to sign.`;

  if (decision !== undefined || expired) {
    // Answered or run out: one line that says how it ended; nothing here asks any more.
    return (
      <p className="approval-card approval-card--decided" data-testid="approval-card" data-decision={decision ?? "expired"}>
        {decision === "approved"
          ? describeApproved(`You approved ${price} to ${serviceName}`, outcome, metered ? paidAmount : undefined)
          : decision === "rejected"
            ? `You declined ${price} to ${serviceName}. Nothing was signed.`
            : `The quote for ${price} to ${serviceName} expired before you approved it. Nothing was signed; ask again for a fresh quote.`}
      </p>
    );
  }

  return (
    <section className="approval-card" data-testid="approval-card" data-decision="open" aria-labelledby={headingId}>
      <h3 id={headingId} className="approval-card__title">
        Approve payment of {price}?
      </h3>
      <dl className="facts">
        <div>
          <dt>Amount</dt>
          <dd data-testid="approval-amount">{price}</dd>
        </div>
        {metered && approval.metering ? (
          <div>
            <dt>Metered</dt>
            <dd data-testid="approval-unit-price">
              {approval.metering.unitPrice} USDC per {approval.metering.unit ?? "unit"}
            </dd>
          </div>
        ) : null}
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
          <dd data-testid="approval-expiry">in {formatCountdown(secondsLeft)}</dd>
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

      {metered ? (
        <p className="approval-card__note" data-testid="approval-metered">
          The service takes what it uses, at most {approval.amount} USDC; the rest of the ceiling is never taken.
        </p>
      ) : null}
      {approval.permit2Approval && permit2.kind !== "done" ? (
        <>
          <p className="approval-card__note" data-testid="permit2-needed">
            Metered payments go through Permit2, and your wallet does not yet allow Permit2 to move enough of its USDC for this one: approve an allowance (a
            transaction), then sign the payment.
          </p>
          {permit2Needed === undefined ? (
            <p className="approval-card__note approval-card__note--error">
              This quote does not say how much Permit2 must be allowed; ask again for a fresh quote.
            </p>
          ) : (
            <div className="field approval-card__allowance">
              <label htmlFor={`${headingId}-allowance`} className="field__label">
                Permit2 allowance
              </label>
              <div className="field__control">
                <input
                  id={`${headingId}-allowance`}
                  data-testid="permit2-allowance-input"
                  className="field__input tabular"
                  type="text"
                  inputMode="decimal"
                  autoComplete="off"
                  spellCheck={false}
                  value={allowanceText}
                  disabled={permit2.kind === "sending"}
                  onChange={(event) => setAllowanceText(event.target.value)}
                  aria-invalid={allowance?.ok === false ? true : undefined}
                  aria-describedby={`${headingId}-allowance-help`}
                />
                <span className="field__suffix" aria-hidden="true">
                  USDC
                </span>
              </div>
              <p id={`${headingId}-allowance-help`} className={allowance?.ok === false ? "field__error" : "field__help"} data-testid="permit2-allowance-words">
                {allowance?.ok === false ? allowance.problem : allowance ? describePermit2Allowance(allowance.amount, permit2Needed) : null}
              </p>
            </div>
          )}
        </>
      ) : null}
      {permit2.kind === "declined" ? <p className="approval-card__note">You declined the Permit2 approval in your wallet. Nothing was sent.</p> : null}
      {permit2.kind === "error" ? (
        <p className="approval-card__note approval-card__note--error">The Permit2 approval did not go through: {permit2.message}</p>
      ) : null}

      {blocker ? <p className="approval-card__blocker">{blocker}</p> : null}
      <div className="approval-card__actions">
        {wrongChain && !wrongAccount ? (
          <button type="button" className="button" disabled={switchChain.isPending} onClick={() => switchChain.mutate({ chainId })}>
            {switchChain.isPending ? "Switching…" : `Switch to ${network.label}`}
          </button>
        ) : null}
        {approval.permit2Approval && permit2.kind !== "done" ? (
          <button
            type="button"
            className="button button--primary"
            data-testid="permit2-button"
            disabled={!canAct || blocker !== undefined || permit2.kind === "sending" || allowance?.ok !== true}
            onClick={() => void allowPermit2()}
          >
            {permit2.kind === "sending" ? "Waiting for the approval…" : allowance?.ok ? `Allow Permit2 ${formatUsdc(allowance.amount)} USDC` : "Allow Permit2"}
          </button>
        ) : null}
        <button
          type="button"
          className="button button--primary"
          data-testid="approve-button"
          disabled={!canAct || blocker !== undefined || signState.kind === "signing" || permit2.kind !== "done"}
          onClick={() => void approve()}
        >
          {signState.kind === "signing" ? "Waiting for your wallet…" : `Approve ${price}`}
        </button>
        <button type="button" className="button" data-testid="reject-button" disabled={!canAct || signState.kind === "signing"} onClick={onReject}>
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
      {signState.kind === "error" ? <p className="approval-card__note approval-card__note--error">The wallet could not sign: {signState.message}</p> : null}
    </section>
  );
}

/** What an approval led to, from the payment's status (and, metered, what was actually taken). */
function describeApproved(approved: string, outcome: PaymentStatus | undefined, paid?: string): string {
  const taken = paid === undefined ? "it was paid" : `${paid} USDC was taken`;
  switch (outcome) {
    case "delivered":
      return `${approved}: ${taken} and the data delivered.`;
    case "confirmed":
      return `${approved}: ${taken}.`;
    case "pending":
      return `${approved}; your signature was sent and the payment is not settled yet (see above).`;
    case "failed":
      return `${approved}; the payment did not complete (see above).`;
    default:
      return `${approved}; your signature was sent.`;
  }
}

/** "JSON", "form (form-data)" or "text"; the raw type for one this page does not know. */
function bodyTypeLabel(contentType: string | undefined): string {
  const type = bodyTypeOf(contentType);
  return type ? describeBodyType(type) : (contentType ?? "");
}
