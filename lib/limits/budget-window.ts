/**
 * The windows every budget is counted in, whichever store holds it (lib/store, lib/channels):
 * one definition, so a channel's vouchers and a single payment count over the same day.
 */

/** How far back the daily limit looks: a rolling 24 hours, not a calendar day. */
export const DAILY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How long an unreleased reservation holds budget. Reservations are released only when it is
 * certain nothing was spent; this TTL exists only so a crashed instance cannot hold a payer's
 * budget forever. A full window keeps it on the safe side: a payment could have settled.
 */
export const RESERVATION_TTL_MS = DAILY_WINDOW_MS;
