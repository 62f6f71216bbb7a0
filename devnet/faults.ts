import { z } from "zod";

/**
 * Fault switches: ways to make the local world misbehave on purpose, so tests can drive the
 * app through every failure path. All default to off. Set them in-process with
 * `devnet.faults.set({ ... })`, or over HTTP on the devnet facilitator at `/_devnet/faults`.
 */
export const FaultSettings = z.object({
  /** POST /verify answers `isValid: false` (reason `devnet_fault_verify_failed`). */
  verifyFails: z.boolean(),
  /** POST /settle answers `success: false` (reason `devnet_fault_settle_failed`) without broadcasting. */
  settleFails: z.boolean(),
  /** /verify, /settle and /supported never answer until this is switched off or the devnet stops. */
  facilitatorHangs: z.boolean(),
  /**
   * /settle broadcasts the transfer, then its wait for the receipt times out (after
   * `settleTimeoutMs`): the answer is `settlement_pending` with the transaction hash, and the
   * transaction still mines. (x402 v1's settle reports the timeout without the hash.)
   */
  settleTimesOut: z.boolean(),
  /** Services (by name) that answer 500 after the payment verified, and so never settle it. */
  failingServices: z.array(z.string()),
  /** Services (by name) whose port refuses connections, as if the server were down. */
  offlineServices: z.array(z.string()),
  /**
   * Services (by name) whose signed receipts (offer-receipt extension) are signed by a key that
   * is not their payee's, as an impersonator would: the agent must report them unverified.
   */
  wrongReceiptSigner: z.array(z.string()),
});
export type FaultSettings = z.infer<typeof FaultSettings>;

/** A change to some of the switches; the others keep their values. */
export const FaultUpdate = FaultSettings.partial().strict();
export type FaultUpdate = z.infer<typeof FaultUpdate>;

const NO_FAULTS: FaultSettings = {
  verifyFails: false,
  settleFails: false,
  facilitatorHangs: false,
  settleTimesOut: false,
  failingServices: [],
  offlineServices: [],
  wrongReceiptSigner: [],
};

export type HangOutcome = "released" | "stopped";

/** Opens or closes a service's port; provided by the devnet once its services exist. */
export type ServiceSwitch = (serviceName: string, online: boolean) => Promise<void>;

export class DevnetFaults {
  #settings: FaultSettings = structuredClone(NO_FAULTS);
  #waitingOnHang = new Set<(outcome: HangOutcome) => void>();
  #stopped = false;
  #serviceNames: ReadonlySet<string> = new Set();
  #switchService: ServiceSwitch | undefined;

  /** Called by the devnet when its services are up; names outside this list are refused. */
  attachServices(serviceNames: Iterable<string>, switchService: ServiceSwitch): void {
    this.#serviceNames = new Set(serviceNames);
    this.#switchService = switchService;
  }

  /** The current switches (a copy). */
  get(): FaultSettings {
    return structuredClone(this.#settings);
  }

  /**
   * Changes some switches and returns all of them. Resolves once the change is in effect (a
   * service taken offline has closed its port).
   * @example await devnet.faults.set({ settleFails: true, offlineServices: ["weather"] });
   */
  async set(update: FaultUpdate): Promise<FaultSettings> {
    const parsed = FaultUpdate.parse(update);
    for (const name of [...(parsed.failingServices ?? []), ...(parsed.offlineServices ?? []), ...(parsed.wrongReceiptSigner ?? [])]) {
      if (!this.#serviceNames.has(name)) throw new Error(`devnet faults: no service named "${name}"`);
    }
    if (parsed.offlineServices) {
      const wanted = new Set(parsed.offlineServices);
      const current = new Set(this.#settings.offlineServices);
      for (const name of this.#serviceNames) {
        if (wanted.has(name) !== current.has(name)) await this.#switchService?.(name, !wanted.has(name));
      }
    }
    const wasHanging = this.#settings.facilitatorHangs;
    this.#settings = { ...this.#settings, ...parsed };
    if (wasHanging && !this.#settings.facilitatorHangs) this.#releaseHung("released");
    return this.get();
  }

  /** Switches everything off (services back online, held requests released). */
  async reset(): Promise<FaultSettings> {
    return this.set(structuredClone(NO_FAULTS));
  }

  get verifyFails(): boolean {
    return this.#settings.verifyFails;
  }

  get settleFails(): boolean {
    return this.#settings.settleFails;
  }

  get settleTimesOut(): boolean {
    return this.#settings.settleTimesOut;
  }

  isServiceFailing(serviceName: string): boolean {
    return this.#settings.failingServices.includes(serviceName);
  }

  signsReceiptsWithWrongKey(serviceName: string): boolean {
    return this.#settings.wrongReceiptSigner.includes(serviceName);
  }

  /** Resolves at once unless the facilitator is set to hang; then when released or stopped. */
  waitWhileFacilitatorHangs(): Promise<HangOutcome> {
    if (this.#stopped) return Promise.resolve("stopped");
    if (!this.#settings.facilitatorHangs) return Promise.resolve("released");
    return new Promise((resolve) => this.#waitingOnHang.add(resolve));
  }

  /** The devnet is stopping: nothing may stay held. */
  stop(): void {
    this.#stopped = true;
    this.#releaseHung("stopped");
  }

  #releaseHung(outcome: HangOutcome): void {
    for (const resolve of this.#waitingOnHang) resolve(outcome);
    this.#waitingOnHang.clear();
  }
}
