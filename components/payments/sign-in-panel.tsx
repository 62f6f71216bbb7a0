"use client";

import { useState } from "react";
import { useSignMessage } from "wagmi";
import { shortHex } from "@/lib/client/format";
import { useNetwork } from "@/lib/client/network-context";
import { RequestProblemError, signInWithEthereum, type SessionState } from "@/lib/client/payment-history";
import { isUserRejection, walletErrorMessage } from "@/lib/client/wallet-errors";

type SignedIn = Extract<SessionState, { signedIn: true }>;

export type SignInPanelProps = {
  /** The connected wallet, if any. */
  address: `0x${string}` | undefined;
  session: SignedIn | undefined;
  onSignedIn: (session: SessionState) => void;
  onSignOut: () => void;
};

/** Proves the connected wallet to the server (Sign-In with Ethereum), or signs out. */
export function SignInPanel({ address, session, onSignedIn, onSignOut }: SignInPanelProps) {
  const network = useNetwork();
  const signMessage = useSignMessage();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();

  const signIn = async () => {
    if (!address) return;
    setBusy(true);
    setProblem(undefined);
    try {
      onSignedIn(await signInWithEthereum({ address, chainId: network.chainId, signMessage: (message) => signMessage.mutateAsync({ message }) }));
    } catch (error) {
      setProblem(
        error instanceof RequestProblemError
          ? error.problem.detail
          : isUserRejection(error)
            ? "You declined the sign-in in your wallet."
            : walletErrorMessage(error),
      );
    } finally {
      setBusy(false);
    }
  };

  if (session) {
    const otherWallet = address !== undefined && address.toLowerCase() !== session.address.toLowerCase();
    return (
      <div className="sign-in" data-testid="signed-in" data-address={session.address}>
        <p className="wallet__line">
          <span className="wallet__dot" aria-hidden="true" />
          <span>
            Signed in as <code title={session.address}>{shortHex(session.address)}</code>
          </span>
        </p>
        {otherWallet ? (
          <p className="notice notice--warning small" role="status" data-testid="other-wallet-connected">
            Your connected wallet is <code>{shortHex(address)}</code>. Sign out, then sign in with it to see its payments.
          </p>
        ) : null}
        <button type="button" className="button button--small" data-testid="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    );
  }

  return (
    <div className="sign-in" data-testid="signed-out">
      <p className="small muted">
        {address
          ? "Sign a message with your wallet to prove it is yours. It costs nothing and moves no money."
          : "Connect the wallet whose payments you want to see, then sign in with it."}
      </p>
      <button type="button" className="button button--primary" data-testid="sign-in" disabled={!address || busy} onClick={() => void signIn()}>
        {busy ? "Waiting for your wallet…" : "Sign in with Ethereum"}
      </button>
      {problem ? (
        <p className="small wallet__error" role="alert" data-testid="sign-in-error">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
