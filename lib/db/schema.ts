/**
 * The tables as Kysely sees them (see migrations/). Numeric and bigint columns come back as
 * strings from Postgres (and may come back as numbers or bigints from PGlite), so readers
 * convert them explicitly.
 */
import type { ColumnType, Generated } from "kysely";

type Numeric = ColumnType<string | number | bigint, string | bigint, string | bigint>;
type Millis = ColumnType<string | number | bigint, number, number>;

export type PaymentsTable = {
  id: string;
  nonce: string | null;
  payer: string;
  payer_kind: string;
  request_key: string | null;
  conversation_id: string | null;
  service: string | null;
  resource: string | null;
  method: string | null;
  amount: Numeric | null;
  asset: string | null;
  network: string | null;
  pay_to: string | null;
  valid_after: Millis | null;
  valid_before: Millis | null;
  status: string;
  reason: string | null;
  message: string | null;
  tx_hash: string | null;
  /** 'upto' for a metered payment, NULL for exact (migration 0011). */
  scheme: string | null;
  /** A metered payment's signed ceiling; `amount` is what it settled once it did (migration 0011). */
  ceiling: Numeric | null;
  /** 'over-settled' when a metered payment took more than the service's metering says (migration 0011). */
  settlement_flag: string | null;
  /** The signed receipt and its verdict, jsonb (migration 0005, lib/journal/recorded-receipt.ts). */
  receipt: ColumnType<unknown, string | null, string | null> | null;
  created_at: Millis;
  updated_at: Millis;
  /** When `status` last changed, on the database's clock; written by a trigger only (migration 0013). */
  status_at: ColumnType<string | number | bigint | null, never, never>;
};

export type PaymentEventsTable = {
  seq: Generated<string>;
  payment_id: string;
  status: string;
  at: Millis;
  details: ColumnType<unknown, string, string>;
};

export type BudgetReservationsTable = {
  reservation_id: string;
  payer: string;
  amount: Numeric;
  state: "reserved" | "committed";
  tx_hash: string | null;
  expires_at: Millis;
  committed_at: Millis | null;
  /** A named caller's budget this reservation also counts against (migration 0004). */
  budget_key: string | null;
  /** A budget shared by many callers this reservation also counts against (migration 0008). */
  pool_key: string | null;
  /** For a channel's voucher: the deposit's reservation its amount was moved out of (migration 0016). */
  drawn_from: string | null;
};

export type IdempotencyKeysTable = {
  key: string;
  state: "pending" | "complete";
  record: ColumnType<unknown, string | null, string | null>;
  expires_at: Millis;
  /** Which instance and request hold a pending claim (migration 0009); null once complete. */
  holder: string | null;
};

/** Operator API keys (lib/access): the secret's sha256 only, never the token. */
export type ApiKeysTable = {
  id: string;
  name: string;
  secret_hash: string;
  per_payment: Numeric;
  per_request: Numeric;
  daily: Numeric;
  agent_wallet: boolean;
  created_at: Millis;
  expires_at: Millis | null;
  revoked_at: Millis | null;
};

/** Grants (migration 0014, lib/grants): a Permit2 allowance a user signed once, and who may spend it. */
export type GrantsTable = {
  id: string;
  wallet_address: string;
  amount: Numeric;
  expires_at: Millis;
  nonce: Numeric;
  permit_transaction: string;
  secret_hash: string;
  created_at: Millis;
  revoked_at: Millis | null;
  replaced_by: string | null;
  float_claimed_until: Millis;
  float_claimed_by: string | null;
  float_returned: Numeric;
  swept_at: Millis | null;
};

/** Evidence about a listing (migration 0012, lib/evidence): the last probe's verdict and the probe claim. */
export type ListingEvidenceTable = {
  listing_key: string;
  verdict: string | null;
  detail: string | null;
  latency_ms: number | null;
  checked_at: Millis | null;
  expires_at: Millis;
  claimed_until: Millis;
  claimed_by: string | null;
};

/** x402 batch-settlement channels (migrations 0016 to 0020, lib/channels); their claims in `channel_claims` (0021). */
export type PaymentChannelsTable = {
  channel_id: string;
  payer: string;
  receiver: string;
  token: string;
  network: string;
  service_url: string;
  config: ColumnType<unknown, string, string>;
  deposited: Numeric;
  charged: Numeric;
  signed_max: Numeric;
  signature: string | null;
  total_claimed: Numeric;
  state: "opening" | "open" | "refunding" | "withdrawing" | "closed";
  /** Migration 0018: refunds failed in a row, and the payer's own withdrawal (chain seconds; database-clock claim). */
  refund_failures: number;
  withdraw_ready_at: Millis | null;
  withdraw_tx: string | null;
  withdraw_claim_until: Millis | null;
  /** Migration 0019: a call lost with its lease or its answer (journal id, reservation, the charge it signed on), for the next settle to decide. */
  lost_payment_id: string | null;
  lost_reservation_id: string | null;
  lost_base: Numeric | null;
  /** The confirmed deposit's open reservation, and a deposit reserved but not yet confirmed. */
  deposit_reservation_id: string | null;
  pending_deposit_reservation_id: string | null;
  /** The journal row of the latest deposit. */
  deposit_payment_id: string | null;
  /** The lease that serializes calls on the channel (database clock), and the call holding it. */
  lease_id: string | null;
  lease_until: Millis | null;
  lease_reservation_id: string | null;
  lease_price: Numeric | null;
  lease_payment_id: string | null;
  opened_at: Millis;
  last_used_at: Millis;
  updated_at: Millis;
};

/** Each claim recorded on a channel, its place in the chain, and the receiver's payout that covered it (migration 0021). */
export type ChannelClaimsTable = {
  channel_id: string;
  tx_hash: string;
  block_number: ColumnType<string, string | bigint, string | bigint>;
  log_index: number;
  claimed: Numeric;
  settled_tx: string | null;
};

export type Database = {
  payments: PaymentsTable;
  payment_events: PaymentEventsTable;
  budget_reservations: BudgetReservationsTable;
  idempotency_keys: IdempotencyKeysTable;
  api_keys: ApiKeysTable;
  listing_evidence: ListingEvidenceTable;
  grants: GrantsTable;
  payment_channels: PaymentChannelsTable;
  channel_claims: ChannelClaimsTable;
};
