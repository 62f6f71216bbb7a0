import "server-only";
/**
 * The database schema, as versioned migrations applied at start (in order, each once, under
 * Kysely's migration lock so two instances starting together do not race). One migration per
 * module, named as the migration is: `0012_<what>.ts` holds migration "0012_<what>". A new
 * migration is a new module listed below; an applied one is never edited or renamed (the name
 * is what a database remembers it by, in `kysely_migration`).
 *
 * Amounts are USDC base units in numeric(78,0); times are epoch milliseconds in bigint, taken
 * from the database's own clock (`db_now_ms()`, migration 0009) whenever they decide money, so
 * the clocks of many instances never meet in one comparison. Tests may still pass a time.
 */
import type { Migration, MigrationProvider } from "kysely";
import { paymentJournalMigration } from "./0001_payment_journal";
import { reserveBudgetFunctionMigration } from "./0002_reserve_budget_function";
import { apiKeysMigration } from "./0003_api_keys";
import { budgetScopesMigration } from "./0004_budget_scopes";
import { paymentReceiptsMigration } from "./0005_payment_receipts";
import { paidPayeesMigration } from "./0006_paid_payees";
import { recordPaymentStepMigration } from "./0007_record_payment_step";
import { pooledBudgetMigration } from "./0008_pooled_budget";
import { databaseClockMigration } from "./0009_database_clock";
import { paymentsByRequestMigration } from "./0010_payments_by_request";
import { uptoSettlementMigration } from "./0011_upto_settlement";
import { listingEvidenceMigration } from "./0012_listing_evidence";
import { paymentStatusClockMigration } from "./0013_payment_status_clock";
import { grantsMigration } from "./0014_grants";
import { grantFloatReturnsMigration } from "./0015_grant_float_returns";
import { paymentChannelsMigration } from "./0016_payment_channels";
import { channelSettlementMigration } from "./0017_channel_settlement";
import { channelWithdrawalsMigration } from "./0018_channel_withdrawals";
import { channelLostCallsMigration } from "./0019_channel_lost_calls";
import { channelAbandonOutcomesMigration } from "./0020_channel_abandon_outcomes";
import { channelClaimSettlementsMigration } from "./0021_channel_claim_settlements";

/** Every migration by name, in the order they run (Kysely also sorts them by name). */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001_payment_journal": paymentJournalMigration,
  "0002_reserve_budget_function": reserveBudgetFunctionMigration,
  "0003_api_keys": apiKeysMigration,
  "0004_budget_scopes": budgetScopesMigration,
  "0005_payment_receipts": paymentReceiptsMigration,
  "0006_paid_payees": paidPayeesMigration,
  "0007_record_payment_step": recordPaymentStepMigration,
  "0008_pooled_budget": pooledBudgetMigration,
  "0009_database_clock": databaseClockMigration,
  "0010_payments_by_request": paymentsByRequestMigration,
  "0011_upto_settlement": uptoSettlementMigration,
  "0012_listing_evidence": listingEvidenceMigration,
  "0013_payment_status_clock": paymentStatusClockMigration,
  "0014_grants": grantsMigration,
  "0015_grant_float_returns": grantFloatReturnsMigration,
  "0016_payment_channels": paymentChannelsMigration,
  "0017_channel_settlement": channelSettlementMigration,
  "0018_channel_withdrawals": channelWithdrawalsMigration,
  "0019_channel_lost_calls": channelLostCallsMigration,
  "0020_channel_abandon_outcomes": channelAbandonOutcomesMigration,
  "0021_channel_claim_settlements": channelClaimSettlementsMigration,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
