import "server-only";
/**
 * The key that signs sign-in cookies. Outside the local world SESSION_SECRET is required: without
 * it nobody can sign in (503), rather than sessions being signed with a key anyone can read here.
 */
import type { Env } from "../env";
import { AppError } from "../errors";

/** A fixed secret for the local world only, like the local quote secret. */
const LOCAL_SESSION_SECRET = "local-devnet-session-secret-not-for-production-use";

export function sessionSecretOf(env: Pick<Env, "SESSION_SECRET" | "X402_NETWORK">): string {
  const secret = env.SESSION_SECRET ?? (env.X402_NETWORK === "local" ? LOCAL_SESSION_SECRET : undefined);
  if (!secret) throw new AppError("unavailable:not_configured", { details: "SESSION_SECRET is not set" });
  return secret;
}
