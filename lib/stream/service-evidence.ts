import { z } from "zod";

/**
 * Evidence about a listed service: when an unpaid probe last found it buyable (epoch ms, the
 * database's clock) and how long it took to answer, and what our payments there came to.
 */
export const ServiceEvidence = z.object({
  checkedAt: z.number().int().nonnegative().optional(),
  probeLatencyMs: z.number().int().nonnegative().optional(),
  delivered: z.number().int().nonnegative(),
  failedAfterPayment: z.number().int().nonnegative(),
  refused: z.number().int().nonnegative(),
  overSettled: z.number().int().nonnegative(),
  /** Mean time to delivery of our payments there, milliseconds. */
  latencyMs: z.number().int().nonnegative().optional(),
});
export type ServiceEvidence = z.infer<typeof ServiceEvidence>;
