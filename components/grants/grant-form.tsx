"use client";

import { useState } from "react";
import { useSignTypedData } from "wagmi";
import { createGrant, GrantRequestError, prepareGrant } from "@/lib/client/grants-api";
import { grantSessionStore } from "@/lib/client/grant-session";
import { describeGrant, formatUntil, GRANT_EXPIRY_CHOICES, parseGrantAmount } from "@/lib/client/grant-terms";
import { useNetwork } from "@/lib/client/network-context";
import { useNow } from "@/lib/client/use-now";
import { usePermit2Approve } from "@/lib/client/use-permit2-approve";
import { isUserRejection, walletErrorMessage } from "@/lib/client/wallet-errors";
import { PERMIT2, readGrantTypedData, viemGrantTypedData } from "@/lib/grants/grant-permit";

type Step =
  | { kind: "idle" }
  | { kind: "preparing" }
  | { kind: "approving" }
  | { kind: "signing" }
  | { kind: "submitting" }
  | { kind: "declined" }
  | { kind: "error"; message: string };

const BUSY_LABEL: Partial<Record<Step["kind"], string>> = {
  preparing: "Preparing…",
  approving: "Waiting for the Permit2 approval…",
  signing: "Waiting for your wallet…",
  submitting: "Submitting the permit…",
};

export type GrantFormProps = {
  walletAddress: `0x${string}`;
  /** Why the wallet cannot sign here now (another network), if it cannot. */
  blocker: string | undefined;
};

/**
 * "Let the agent spend up to X USDC until T": one button that prepares the Permit2 permit, has
 * the wallet approve Permit2 for exactly that amount first when the server says it must, has
 * the wallet sign the permit, submits it, and keeps the grant's token for this tab.
 */
export function GrantForm({ walletAddress, blocker }: GrantFormProps) {
  const network = useNetwork();
  const { signTypedDataAsync } = useSignTypedData();
  const approvePermit2 = usePermit2Approve();
  const [amountText, setAmountText] = useState("0.05");
  const [seconds, setSeconds] = useState<number>(GRANT_EXPIRY_CHOICES[0].seconds);
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const now = useNow(true, 30_000);
  const amount = parseGrantAmount(amountText);
  const until = formatUntil(new Date(now + seconds * 1000), new Date(now));
  const busy = BUSY_LABEL[step.kind] !== undefined;

  async function grant() {
    if (!amount.ok) return;
    try {
      setStep({ kind: "preparing" });
      const prepared = await prepareGrant({ walletAddress, amount: amount.text, expiresInSeconds: seconds });
      const read = readGrantTypedData(prepared.typedData);
      // The wallet signs only what the person asked for: this amount of this network's USDC.
      if (
        !read ||
        read.permit.amount !== amount.amount ||
        read.permit.chainId !== network.chainId ||
        read.permit.token.toLowerCase() !== network.usdc.toLowerCase()
      ) {
        setStep({ kind: "error", message: "the server's permit is not the one asked for; nothing was signed." });
        return;
      }
      if (prepared.approval.needed) {
        setStep({ kind: "approving" });
        const approved = await approvePermit2({ token: read.permit.token, spender: PERMIT2, amount: amount.amount, chainId: network.chainId });
        if (!approved) {
          setStep({ kind: "error", message: "the Permit2 approval failed on chain; nothing was signed." });
          return;
        }
      }
      setStep({ kind: "signing" });
      const signature = await signTypedDataAsync(viemGrantTypedData(read.permit));
      setStep({ kind: "submitting" });
      const { grant: created, token } = await createGrant(prepared.typedData, signature);
      setStep({ kind: "idle" });
      grantSessionStore.set({
        status: "active",
        id: created.id,
        token,
        walletAddress: created.walletAddress,
        amount: created.amount,
        expiresAt: created.expiresAt,
      });
    } catch (error) {
      if (isUserRejection(error)) setStep({ kind: "declined" });
      else setStep({ kind: "error", message: error instanceof GrantRequestError ? error.message : walletErrorMessage(error) });
    }
  }

  return (
    <div className="grant" data-testid="grant-form">
      <div className="field">
        <label htmlFor="grant-amount" className="field__label">
          Let the agent spend up to
        </label>
        <div className="field__control">
          <input
            id="grant-amount"
            data-testid="grant-amount"
            className="field__input tabular"
            type="text"
            inputMode="decimal"
            autoComplete="off"
            spellCheck={false}
            value={amountText}
            disabled={busy}
            onChange={(event) => setAmountText(event.target.value)}
            aria-invalid={amount.ok ? undefined : true}
            aria-describedby="grant-amount-help"
          />
          <span className="field__suffix" aria-hidden="true">
            USDC
          </span>
        </div>
        {amount.ok ? null : (
          <p id="grant-amount-help" className="field__error">
            {amount.problem}
          </p>
        )}
      </div>
      <div role="radiogroup" aria-label="For how long" className="segmented">
        {GRANT_EXPIRY_CHOICES.map((choice) => (
          <button
            key={choice.seconds}
            type="button"
            role="radio"
            aria-checked={seconds === choice.seconds}
            className="segmented__option"
            data-testid={`grant-expiry-${choice.seconds}`}
            disabled={busy}
            onClick={() => setSeconds(choice.seconds)}
          >
            {choice.label}
          </button>
        ))}
      </div>
      {amount.ok ? (
        <p className="small" data-testid="grant-words">
          {describeGrant(amount.amount, until)}
        </p>
      ) : null}
      {blocker ? <p className="small muted">{blocker}</p> : null}
      <button
        type="button"
        className="button button--primary"
        data-testid="grant-button"
        disabled={!amount.ok || busy || blocker !== undefined}
        onClick={() => void grant()}
      >
        {BUSY_LABEL[step.kind] ?? (amount.ok ? `Let the agent spend up to ${amount.text} USDC` : "Let the agent spend")}
      </button>
      {step.kind === "declined" ? <p className="small muted">You declined in your wallet. Nothing was signed.</p> : null}
      {step.kind === "error" ? (
        <p className="small grant__error" role="status" data-testid="grant-error">
          The grant was not made: {step.message}
        </p>
      ) : null}
    </div>
  );
}
