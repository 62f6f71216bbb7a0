import { expect } from "vitest";
import { GuardedFetchError, type GuardedFetchErrorCode } from "../../lib/net/guarded-fetch-error";

/** Awaits a guarded fetch that must be refused, and checks the refusal's code. */
export async function expectRefusal(promise: Promise<unknown>, code: GuardedFetchErrorCode): Promise<GuardedFetchError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(GuardedFetchError.isInstance(error), `expected GuardedFetchError ${code}, got ${String(error)}`).toBe(true);
  expect((error as GuardedFetchError).code).toBe(code);
  return error as GuardedFetchError;
}
