/**
 * A listed service's health in a few words, from the evidence discovery sent with it
 * (lib/evidence): when an unpaid check last found it buyable, and what our payments there came
 * to. Empty when nothing is known, so a listing without evidence shows no line at all.
 */
import type { ServiceEvidence } from "@/lib/stream";

export type ServiceHealth = { text: string; tone: "good" | "bad" | "unknown" };

/**
 * @example
 * serviceHealth({ checkedAt: now - 120_000, delivered: 3, failedAfterPayment: 1, refused: 0, overSettled: 0 }, now);
 * // { text: "checked 2 min ago · delivered 3 of 4 paid calls · 1 failed after payment", tone: "bad" }
 */
export function serviceHealth(evidence: ServiceEvidence | undefined, now: number): ServiceHealth | undefined {
  if (!evidence) return undefined;
  const parts: string[] = [];
  if (evidence.checkedAt !== undefined) parts.push(`checked ${ago(now - evidence.checkedAt)}`);
  const paid = evidence.delivered + evidence.failedAfterPayment;
  if (paid > 0) parts.push(`delivered ${evidence.delivered} of ${paid} paid call${paid === 1 ? "" : "s"}`);
  if (evidence.failedAfterPayment > 0) parts.push(`${evidence.failedAfterPayment} failed after payment`);
  if (evidence.overSettled > 0) parts.push(`${evidence.overSettled} over-settled`);
  if (parts.length === 0) return undefined;
  const tone =
    evidence.failedAfterPayment > 0 || evidence.overSettled > 0 ? "bad" : evidence.delivered > 0 || evidence.checkedAt !== undefined ? "good" : "unknown";
  return { text: parts.join(" · "), tone };
}

function ago(milliseconds: number): string {
  const seconds = Math.max(0, Math.round(milliseconds / 1000));
  if (seconds < 60) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  return `${Math.round(minutes / 60)} h ago`;
}
