/**
 * Test support: a chain and a clock in memory, for unit tests of the purchase path and the
 * reconciler. The clock moves only when code sleeps on it, so waits for an authorization's
 * expiry take no real time and every branch is decided by the test.
 */
import type { ChainReader, PermitRef, PermitSettlement } from "../../lib/x402/chain-reader";

export class FakeClock {
  constructor(public nowMs = Date.UTC(2026, 0, 1, 12, 0, 0)) {}
  readonly now = (): number => this.nowMs;
  /** Sleeping moves the clock; `onSleep` lets a test act "while" time passes. */
  onSleep: ((nowMs: number) => void) | undefined;
  readonly sleep = async (ms: number): Promise<void> => {
    this.nowMs += ms;
    this.onSleep?.(this.nowMs);
  };
  advance(ms: number): void {
    this.nowMs += ms;
  }
}

export class FakeChain implements ChainReader {
  balance = 1_000_000_000n;
  /** Authorizations used on chain: nonce (lowercase) → transaction hash. */
  readonly used = new Map<string, `0x${string}`>();
  /** When true, every read fails, as an unreachable RPC would. */
  unreachable = false;
  reads = 0;
  /**
   * The latest block's time, epoch ms; by default the real time, which is later than any
   * FakeClock (so the test's clock decides), unless a test holds the chain back.
   */
  blockTimeMs: number | undefined;

  /** What the payer lets Permit2 move (approved for the maximum unless a test says otherwise). */
  permit2Approved = 2n ** 256n - 1n;
  /** Upto permits settled on chain: Permit2 nonce → the transaction and the amount it moved. */
  readonly permits = new Map<bigint, { txHash: `0x${string}`; amount: bigint }>();
  /** Transactions that exist but settled no permit (a service may name any hash). */
  readonly otherTransactions = new Set<string>();

  /** Settles an upto permit for `amount`, as the facilitator's call of the proxy would. */
  settlePermit(nonce: bigint, amount: bigint, txHash: `0x${string}` = `0x${"cd".repeat(32)}`): `0x${string}` {
    this.permits.set(nonce, { txHash, amount });
    return txHash;
  }

  /** Marks an authorization used by a transaction, as a settlement would. */
  settle(nonce: string, txHash: `0x${string}` = `0x${"ab".repeat(32)}`): `0x${string}` {
    this.used.set(nonce.toLowerCase(), txHash);
    return txHash;
  }

  async balanceOf(): Promise<bigint> {
    this.check();
    return this.balance;
  }

  async isAuthorizationUsed(_authorizer: `0x${string}`, nonce: `0x${string}`): Promise<boolean> {
    this.check();
    this.reads += 1;
    return this.used.has(nonce.toLowerCase());
  }

  async findAuthorizationTransaction(_authorizer: `0x${string}`, nonce: `0x${string}`): Promise<`0x${string}` | undefined> {
    this.check();
    return this.used.get(nonce.toLowerCase());
  }

  async transactionUsedAuthorization(hash: `0x${string}`, _authorizer: `0x${string}`, nonce: `0x${string}`): Promise<boolean | undefined> {
    this.check();
    const known = [...this.used.values()].includes(hash);
    if (!known) return undefined;
    return this.used.get(nonce.toLowerCase()) === hash;
  }

  async permit2Allowance(): Promise<bigint> {
    this.check();
    return this.permit2Approved;
  }

  async isPermit2NonceUsed(_owner: `0x${string}`, nonce: bigint): Promise<boolean> {
    this.check();
    this.reads += 1;
    return this.permits.has(nonce);
  }

  async permitSettlementIn(hash: `0x${string}`, permit: PermitRef): Promise<PermitSettlement | false | undefined> {
    this.check();
    const settled = this.permits.get(permit.nonce);
    if (settled?.txHash === hash) return { amount: settled.amount };
    const known =
      this.otherTransactions.has(hash) || [...this.permits.values()].some((entry) => entry.txHash === hash) || [...this.used.values()].includes(hash);
    return known ? false : undefined;
  }

  async findPermitSettlement(permit: PermitRef): Promise<(PermitSettlement & { txHash: `0x${string}` }) | undefined> {
    this.check();
    const settled = this.permits.get(permit.nonce);
    return settled ? { amount: settled.amount, txHash: settled.txHash } : undefined;
  }

  async latestBlockTime(): Promise<bigint> {
    this.check();
    return BigInt(Math.floor((this.blockTimeMs ?? Date.now()) / 1000));
  }

  private check(): void {
    if (this.unreachable) throw new Error("RPC unreachable");
  }
}
