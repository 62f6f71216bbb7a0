"use client";

import Link from "next/link";
import { useCallback, useMemo, useState, type ReactNode } from "react";
import { useConnection } from "wagmi";
import { formatUsdc } from "@/lib/money";
import type { AssistantTurn } from "@/lib/client/chat-types";
import { activeGrantFor, endGrantSession, useGrantSession } from "@/lib/client/grant-session";
import { describeGrantEnd } from "@/lib/client/grant-terms";
import { isSettled, serviceNameOf } from "@/lib/client/payment-view";
import { useNetwork } from "@/lib/client/network-context";
import { usePayerMode, useLimitsDraft, validateLimitsDraft } from "@/lib/client/preferences";
import { spentInLastDay, useReceipts } from "@/lib/client/receipts";
import { useChat } from "@/lib/client/use-chat";
import { useNow } from "@/lib/client/use-now";
import type { ApprovalRequest, SignInRequest } from "@/lib/stream";
import { GrantPanel } from "../grants/grant-panel";
import { LimitsPanel } from "../settings/limits-panel";
import { PayerToggle } from "../settings/payer-toggle";
import { ReceiptsPanel } from "../settings/receipts-panel";
import { WalletPanel } from "../wallet/wallet-panel";
import { Composer } from "./composer";
import { MessageList } from "./message-list";
import { Suggestions } from "./suggestions";

/** The chat page: conversation, composer, and the wallet, payer, limits and receipts panels. */
export function ChatApp() {
  const network = useNetwork();
  const connection = useConnection();
  const { turns, busy, cooldownSeconds, send, sendSignature, sendGoAhead, sendSignIn, markRejected, stop } = useChat();
  const payer = usePayerMode();
  const limitsDraft = useLimitsDraft();
  const receipts = useReceipts();
  const [draft, setDraft] = useState("");
  const [panelOpen, setPanelOpen] = useState(false);
  const minuteClock = useNow(true, 30_000);
  const grantSession = useGrantSession();

  const limits = useMemo(() => validateLimitsDraft(limitsDraft), [limitsDraft]);
  const spentLastDay = formatUsdc(spentInLastDay(receipts, Math.max(minuteClock, receipts[0]?.at ?? 0)));
  const walletAddress = connection.status === "connected" ? connection.address : undefined;
  const wrongChain = walletAddress !== undefined && connection.chainId !== network.chainId;
  // With "my wallet" and an active grant of that wallet, every message carries the grant's token.
  const grant = payer === "wallet" ? activeGrantFor(grantSession, walletAddress) : undefined;

  // Bumps when a payment settles or a turn ends, so the wallet balance is read again.
  const settledCount = useMemo(
    () =>
      turns.reduce(
        (count, turn) =>
          turn.role === "assistant" ? count + Object.values(turn.payments).filter((view) => isSettled(view.status)).length + (turn.finish ? 1 : 0) : count,
        0,
      ),
    [turns],
  );

  let blocker: string | undefined;
  if (!limits.ok) blocker = "Fix the spending limits before sending.";
  else if (payer === "wallet" && !walletAddress) blocker = "“My wallet” is selected: connect a wallet first, or choose the agent wallet.";
  else if (payer === "wallet" && wrongChain) blocker = `Switch your wallet to ${network.label} first.`;

  const sendText = useCallback(
    async (text: string) => {
      const trimmed = text.trim();
      if (!trimmed || !limits.ok) return;
      setDraft("");
      const outcome = await send(trimmed, {
        walletAddress: payer === "wallet" ? walletAddress : undefined,
        spendingLimits: limits.limits,
        grantToken: grant?.token,
        onRefused: (problem) => {
          // The grant ended, or its token is no longer accepted (401): stop sending it.
          if (problem.code === "forbidden:grant_ended") endGrantSession(describeGrantEnd("refused"));
          else if (grant && problem.code === "unauthorized:bad_key") endGrantSession(describeGrantEnd("unknown"));
        },
      });
      // A refused message (rate limit, validation) comes back to the box to send again.
      if (outcome === "refused") setDraft((current) => (current === "" ? trimmed : current));
    },
    [send, limits, payer, walletAddress, grant],
  );

  const onSigned = useCallback(
    (turnId: string, paymentId: string, approval: ApprovalRequest, signature: `0x${string}`) => {
      void sendSignature(turnId, paymentId, approval, signature);
    },
    [sendSignature],
  );

  const onConfirmed = useCallback(
    (turnId: string, paymentId: string, token: string) => {
      void sendGoAhead(turnId, paymentId, token);
    },
    [sendGoAhead],
  );

  const onSignedIn = useCallback(
    (turnId: string, paymentId: string, approval: ApprovalRequest, signIn: SignInRequest, signature: `0x${string}`) => {
      void sendSignIn(turnId, paymentId, approval, signIn, signature);
    },
    [sendSignIn],
  );

  const onReject = useCallback(
    (turnId: string, paymentId: string) => {
      const turn = turns.find((item): item is AssistantTurn => item.role === "assistant" && item.id === turnId);
      const view = turn?.payments[paymentId];
      markRejected(turnId, paymentId);
      if (!view) return;
      const amount = view.approval?.amount ?? view.details.amount;
      const upTo = view.approval?.scheme === "upto" ? "up to " : "";
      void sendText(`I declined the payment${amount ? ` of ${upTo}${amount} USDC` : ""} to ${serviceNameOf(view)}.`);
    },
    [turns, markRejected, sendText],
  );

  const idle = !busy && cooldownSeconds === 0;

  return (
    <div className="app-shell">
      <header className="app-header">
        <h1 className="app-title">
          x402 <span className="app-title__long">payment </span>agent
        </h1>
        <span className={`network-badge network-badge--${network.network}`} data-testid="network-badge">
          {network.label}
        </span>
        <Link href="/payments" className="button button--small button--quiet header-link header-link--wide-only" data-testid="history-link">
          History
        </Link>
        <button
          type="button"
          className="button button--small panel-toggle"
          aria-expanded={panelOpen}
          aria-controls="side-panel"
          onClick={() => setPanelOpen((open) => !open)}
        >
          {panelOpen ? "Back to chat" : "Wallet & limits"}
        </button>
      </header>

      <div className="app-body">
        <main className={`chat${panelOpen ? " chat--hidden-on-phone" : ""}`} aria-label="Chat">
          <MessageList
            turns={turns}
            idle={idle}
            onSigned={onSigned}
            onConfirmed={onConfirmed}
            onSignedIn={onSignedIn}
            onReject={onReject}
            emptyState={
              <div className="empty">
                <h2 className="empty__title">Ask the agent to find and buy data</h2>
                <p className="muted">It discovers paid HTTP services that speak x402 and pays them in USDC on {network.label}, within your limits.</p>
                <Suggestions onPick={setDraft} />
              </div>
            }
          />
          <Composer
            draft={draft}
            onDraftChange={setDraft}
            onSend={() => void sendText(draft)}
            onStop={stop}
            busy={busy}
            cooldownSeconds={cooldownSeconds}
            blocker={blocker}
          />
        </main>

        <aside id="side-panel" className={`side-panel${panelOpen ? " side-panel--open" : ""}`} aria-label="Wallet, payer and limits">
          <SidePanel id="wallet" title="Wallet">
            <WalletPanel refreshKey={settledCount} />
          </SidePanel>
          <SidePanel id="payer" title="Who pays">
            <PayerToggle value={payer} />
          </SidePanel>
          <SidePanel id="grant" title="Budget grant">
            <GrantPanel
              walletAddress={walletAddress}
              blocker={wrongChain ? `Switch your wallet to ${network.label} first.` : undefined}
              payerIsWallet={payer === "wallet"}
              refreshKey={settledCount}
            />
          </SidePanel>
          <SidePanel id="limits" title="Spending limits">
            <LimitsPanel draft={limitsDraft} validation={limits} spentLastDay={spentLastDay} />
          </SidePanel>
          <SidePanel id="receipts" title="Receipts">
            <ReceiptsPanel receipts={receipts} now={minuteClock} />
            {/* The receipts are this browser's; the server's record of every payment is the history. */}
            <Link href="/payments" className="panel__link" data-testid="panel-history-link">
              Full payment history
            </Link>
          </SidePanel>
        </aside>
      </div>
    </div>
  );
}

/** One titled section of the side panel, labelled by its heading. */
function SidePanel({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="panel__title">
        {title}
      </h2>
      {children}
    </section>
  );
}
