"use client";

import { useEffect, useState } from "react";
import { GrantRequestError, listGrants, revokeGrant, type GrantView } from "@/lib/client/grants-api";
import { endGrantSession, type ActiveGrant } from "@/lib/client/grant-session";
import { describeGrantEnd, formatUntil } from "@/lib/client/grant-terms";
import { useNow } from "@/lib/client/use-now";

export type GrantStatusProps = {
  grant: ActiveGrant;
  /** Changes after each chat turn and settled payment, so what is left is read again. */
  refreshKey: number;
  /** False while "Agent wallet" is chosen: the grant then pays nothing. */
  payerIsWallet: boolean;
};

/** The active grant: what it has left (read from the server), until when, and Revoke. */
export function GrantStatus({ grant, refreshKey, payerIsWallet }: GrantStatusProps) {
  const [view, setView] = useState<GrantView | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [revoking, setRevoking] = useState(false);
  const now = useNow(true, 15_000);
  const expiresAt = Date.parse(grant.expiresAt);
  const expired = now >= expiresAt;

  useEffect(() => {
    if (expired) endGrantSession(describeGrantEnd("expired"));
  }, [expired]);

  useEffect(() => {
    let current = true;
    listGrants(grant.token)
      .then((grants) => {
        if (!current) return;
        const mine = grants.find((item) => item.id === grant.id);
        if (!mine) endGrantSession(describeGrantEnd("unknown"));
        else if (mine.state !== "active") endGrantSession(describeGrantEnd(mine.state));
        else setView(mine);
      })
      .catch((error: unknown) => {
        if (!current) return;
        if (error instanceof GrantRequestError && error.problem.status === 401) endGrantSession(describeGrantEnd("unknown"));
        else setProblem(error instanceof Error ? error.message : "The grant could not be read.");
      });
    return () => {
      current = false;
    };
  }, [grant.id, grant.token, refreshKey]);

  async function revoke() {
    setRevoking(true);
    try {
      await revokeGrant(grant.id, grant.token);
      endGrantSession(describeGrantEnd("revoked"));
    } catch (error) {
      setRevoking(false);
      setProblem(`The grant was not revoked: ${error instanceof Error ? error.message : "unknown error"}`);
    }
  }

  const remaining = view?.remaining ?? grant.amount;
  return (
    <div className="grant" data-testid="grant-active" data-grant-id={grant.id}>
      <p>
        <span className="muted">Left to spend</span>{" "}
        <strong className="tabular" data-testid="grant-remaining" data-remaining={view?.remaining}>
          {remaining} USDC
        </strong>{" "}
        <span className="muted">of {grant.amount} USDC</span>
      </p>
      <p>
        <span className="muted">Until</span> <span data-testid="grant-expiry">{formatUntil(new Date(expiresAt), new Date(now))}</span>
      </p>
      <p className="small muted">
        {payerIsWallet
          ? "The agent pays from your wallet without asking, within this grant and your limits."
          : "“Agent wallet” is chosen: choose “My wallet” to pay under this grant."}
      </p>
      {problem ? (
        <p className="small grant__error" role="status">
          {problem}
        </p>
      ) : null}
      <button type="button" className="button" data-testid="grant-revoke" disabled={revoking} onClick={() => void revoke()}>
        {revoking ? "Revoking…" : "Revoke"}
      </button>
    </div>
  );
}
