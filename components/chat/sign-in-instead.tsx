"use client";

import { useState } from "react";
import { useSignMessage } from "wagmi";
import { isUserRejection, walletErrorMessage } from "@/lib/client/wallet-errors";
import type { SignInRequest } from "@/lib/stream";

export type SignInInsteadProps = {
  signIn: SignInRequest;
  /** False while a request runs, or while the wallet cannot sign (wrong account or chain). */
  enabled: boolean;
  onSignedIn: (signature: `0x${string}`) => void;
};

/**
 * "Pay once, use again": when the service offers sign-in-with-x, a wallet that already paid for
 * this resource can sign the service's sign-in message instead of paying again. Signing it
 * moves no money; the service decides whether this wallet paid before.
 */
export function SignInInstead({ signIn, enabled, onSignedIn }: SignInInsteadProps) {
  const { signMessageAsync } = useSignMessage();
  const [state, setState] = useState<"idle" | "signing" | "declined" | "failed">("idle");
  const [problem, setProblem] = useState("");
  async function signInstead() {
    setState("signing");
    try {
      const signature = await signMessageAsync({ message: signIn.message });
      setState("idle");
      onSignedIn(signature);
    } catch (error) {
      if (isUserRejection(error)) setState("declined");
      else {
        setProblem(walletErrorMessage(error));
        setState("failed");
      }
    }
  }
  return (
    <>
      <button type="button" className="button" data-testid="sign-in-instead" disabled={!enabled || state === "signing"} onClick={() => void signInstead()}>
        {state === "signing" ? "Waiting for your wallet…" : "Already paid? Sign in instead"}
      </button>
      {state === "declined" ? <p className="approval-card__note">You declined the sign-in. Nothing was signed.</p> : null}
      {state === "failed" ? <p className="approval-card__note approval-card__note--error">The wallet could not sign in: {problem}</p> : null}
    </>
  );
}
