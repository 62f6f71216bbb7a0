/**
 * How much conversation one chat request may carry. A module of its own, free of imports, so
 * the browser can trim and cap what it sends without loading the request's whole schema.
 */
export const MAX_MESSAGES = 100;
export const MAX_MESSAGE_CHARS = 16_000;
export const MAX_TOTAL_CHARS = 64_000;
