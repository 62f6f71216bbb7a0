import "server-only";
/**
 * Runs the reconciler on a timer in a long-lived server (`next start`, `npm run dev`). One
 * timer per process, never two runs at once; the timer does not keep the process alive. On
 * Vercel, where functions do not live between requests, the cron route runs it instead.
 */
import { refundIdleChannels } from "./channels/refund-idle-channels";
import { reconcilePendingPayments, type ReconcileDependencies } from "./reconcile-pending";

const TIMER_KEY = Symbol.for("x402-agent.reconciler-timer");
type TimerHolder = { [TIMER_KEY]?: { stop(): void } };

/** Starts the process's timer unless one runs already; returns a function that stops it. */
export function startReconcilerTimer(getDependencies: () => ReconcileDependencies, intervalMs: number): () => void {
  const holder = globalThis as TimerHolder;
  const existing = holder[TIMER_KEY];
  if (existing) return existing.stop;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    Promise.resolve()
      .then(async () => {
        const deps = getDependencies();
        await reconcilePendingPayments(deps);
        // Then idle channels: their refunds go through services, so after the chain's own work.
        if (deps.channelRefunds) await refundIdleChannels(deps.channelRefunds);
      })
      .catch((error: unknown) => console.error(JSON.stringify({ level: "error", event: "reconciler-run-failed", error: String(error) })))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref?.();
  const stop = () => {
    clearInterval(timer);
    if (holder[TIMER_KEY]?.stop === stop) delete holder[TIMER_KEY];
  };
  holder[TIMER_KEY] = { stop };
  return stop;
}
