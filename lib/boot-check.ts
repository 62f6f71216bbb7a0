import "server-only";
/**
 * Checks the configuration when the server starts (Next.js calls `register` in
 * instrumentation.ts once per server process), so a bad setting stops `npm start` at once,
 * naming the variable and the fix, instead of surfacing on the first request.
 */
import { BaseError } from "./base-error";
import { parseEnv } from "./env";

export function checkConfigurationAtBoot(
  source: Record<string, string | undefined> = process.env,
  stop: (message: string) => void = (message) => {
    console.error(message);
    process.exit(1);
  },
): boolean {
  try {
    parseEnv(source);
    return true;
  } catch (error) {
    if (!BaseError.isInstance(error) || error.code !== "config") throw error;
    stop(`The server cannot start. ${error.message}`);
    return false;
  }
}
