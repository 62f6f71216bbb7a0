import { z } from "zod";
import { UsdcDecimal } from "./wire-primitives";

/**
 * A call the agent wallet would pay that waits for the person's go-ahead, because its URL came
 * neither from discovery nor from the user's words (a service's answer or a page put it
 * there). Nothing is asked of the service before it: the person approves the request and the
 * most it may cost. The page sends `token` back in the `PAYMENT-APPROVAL` header.
 */
export const AgentConfirmation = z.object({
  token: z.string().min(1).max(32_768),
  method: z.string().max(10),
  resource: z.string().max(2048),
  /** The most the agent wallet will pay for it (the per-payment limit). */
  maxAmount: UsdcDecimal,
  /** Epoch seconds after which the go-ahead is no longer taken. */
  expiresAt: z.number().int().positive(),
});
export type AgentConfirmation = z.infer<typeof AgentConfirmation>;
