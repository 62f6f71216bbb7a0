"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useConnection } from "wagmi";
import { useNetwork } from "@/lib/client/network-context";
import { fetchSession, signOut, type SessionState } from "@/lib/client/payment-history";
import { WalletPanel } from "../wallet/wallet-panel";
import { PaymentHistory } from "./payment-history";
import { SignInPanel } from "./sign-in-panel";

const SESSION_KEY = ["session"] as const;

/** The history page: connect a wallet, prove it (Sign-In with Ethereum), see what it paid. */
export function PaymentHistoryApp() {
  const network = useNetwork();
  const connection = useConnection();
  const queryClient = useQueryClient();
  const session = useQuery({ queryKey: SESSION_KEY, queryFn: ({ signal }) => fetchSession(signal) });
  const signedIn = session.data?.signedIn ? session.data : undefined;
  const address = connection.status === "connected" ? connection.address : undefined;

  const setSession = (state: SessionState) => {
    queryClient.setQueryData(SESSION_KEY, state);
    queryClient.removeQueries({ queryKey: ["payments"] });
  };

  return (
    <div className="app-shell">
      <header className="app-header">
        <h1 className="app-title">Payment history</h1>
        <span className={`network-badge network-badge--${network.network}`} data-testid="network-badge">
          {network.label}
        </span>
        <Link href="/" className="button button--small button--quiet header-link" data-testid="chat-link">
          Back to chat
        </Link>
      </header>

      <main className="history-page" aria-label="Payment history">
        <div className="history-page__panels">
          <section className="panel history-page__panel" aria-labelledby="history-wallet-heading">
            <h2 id="history-wallet-heading" className="panel__title">
              Wallet
            </h2>
            <WalletPanel refreshKey={0} />
          </section>
          <section className="panel history-page__panel" aria-labelledby="sign-in-heading">
            <h2 id="sign-in-heading" className="panel__title">
              Sign in
            </h2>
            {session.isPending ? (
              <p className="small muted">Checking your sign-in…</p>
            ) : (
              <SignInPanel
                address={address}
                session={signedIn}
                onSignedIn={setSession}
                onSignOut={() => void signOut().then(() => setSession({ signedIn: false }))}
              />
            )}
          </section>
        </div>

        <section className="panel" aria-labelledby="payments-heading">
          <h2 id="payments-heading" className="panel__title">
            Payments
          </h2>
          {signedIn ? (
            <PaymentHistory key={signedIn.address} address={signedIn.address} onSessionEnded={() => setSession({ signedIn: false })} />
          ) : (
            <p className="muted" data-testid="history-locked">
              Sign in to see the payments of your wallet, as the server recorded them, from every browser you used.
            </p>
          )}
        </section>
      </main>
    </div>
  );
}
