/**
 * Runs once before the integration suite. Integration tests start their own local world
 * per file (on free ports), so nothing global is shared here yet; this hook exists so that
 * suite-wide checks (for example, no stray child processes) have one home.
 */
export default function setup(): () => void {
  return () => {};
}
