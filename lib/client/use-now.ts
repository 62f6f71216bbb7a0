import { useEffect, useState } from "react";

/**
 * The current time in ms, re-read every `intervalMs` while `active`; frozen otherwise, so idle
 * cards do not re-render.
 */
export function useNow(active: boolean, intervalMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const tick = () => setNow(Date.now());
    const timer = setInterval(tick, intervalMs);
    const first = setTimeout(tick, 0);
    return () => {
      clearInterval(timer);
      clearTimeout(first);
    };
  }, [active, intervalMs]);
  return now;
}
