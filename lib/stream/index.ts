/**
 * The one protocol module of the chat stream: schemas, encoder and writer (server),
 * decoder (browser, tests, CLI). Nothing else writes or parses stream lines by hand.
 */
export * from "./events";
export * from "./payment-receipt";
export * from "./delivered-result";
export * from "./sign-in-request";
export * from "./framing";
export { encodeEvent, encodeKeepAlive, encodeLine } from "./encode-event";
export { findSequenceViolations, isForwardStatus, SequenceRules } from "./sequence-rules";
export { decodeAll, decodeStream, StreamDecoder, type DecodedItem } from "./stream-decoder";
export { KEEP_ALIVE_INTERVAL_MS, ProtocolViolationError, StreamWriter, type FinishInput, type StreamWriterOptions } from "./stream-writer";
