/**
 * How the local world's paid requests ended once they were past verification: answered, caller
 * gone (never settled), or failed (never settled). Counted so that a test can wait for a request
 * to have ended, instead of sleeping and then asserting that nothing happened.
 */
export type PaidOutcome = "answer" | "caller-gone" | "failed";

export class PaidRequestOutcomes {
  private readonly counts: Record<PaidOutcome, number> = { answer: 0, "caller-gone": 0, failed: 0 };

  record(outcome: PaidOutcome): void {
    this.counts[outcome] += 1;
  }

  /** How many paid requests have ended this way since the world started. */
  count(outcome: PaidOutcome): number {
    return this.counts[outcome];
  }
}
