import "server-only";
/**
 * Checks a Sign-In with Ethereum (EIP-4361) message and its signature: the message must be for
 * this site (domain and URI), this chain, the nonce this browser was given, and fresh; the
 * signature must recover to the message's address. EOAs only (a plain `personal_sign`
 * signature): a smart-contract wallet's EIP-1271 signature would need a chain call.
 */
import { getAddress, isHex, verifyMessage } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { AppError } from "../errors";

/** How old a sign-in message may be when it arrives; it is signed seconds before it is sent. */
export const SIWE_MAX_AGE_MS = 10 * 60 * 1000;
/** Clock difference tolerated between the browser and the server. */
const CLOCK_SKEW_MS = 60 * 1000;

export type SiweExpectations = {
  /** The site's authority as the browser sees it (`host[:port]`). */
  domain: string;
  /** The site's origin (`https://host`); the message's URI must be on it. */
  origin: string;
  chainId: number;
  /** The nonce handed to this browser; undefined when it has none (then nothing passes). */
  nonce: string | undefined;
  now: number;
};

export type VerifiedSignIn = { address: `0x${string}`; chainId: number; nonce: string };

/** Header of every refusal, so a client knows how to sign in. */
export const SIWE_CHALLENGE = 'SIWE realm="payments"';

function refuse(message: string): AppError {
  return new AppError("unauthorized", { message, headers: { "WWW-Authenticate": SIWE_CHALLENGE } });
}

/** @throws AppError "unauthorized" with the reason a person can act on. */
export async function verifySiweSignIn(input: { message: string; signature: string }, expected: SiweExpectations): Promise<VerifiedSignIn> {
  const fields = parseSiweMessage(input.message);
  if (!fields.address || !fields.domain || !fields.uri || !fields.nonce || fields.chainId === undefined || !fields.issuedAt) {
    throw refuse("The sign-in message is not a complete Sign-In with Ethereum message.");
  }
  if (fields.domain !== expected.domain) throw refuse("The sign-in message is for another site.");
  if (!sameOrigin(fields.uri, expected.origin)) throw refuse("The sign-in message names another site's address.");
  if (fields.chainId !== expected.chainId) throw refuse(`Sign in on chain ${expected.chainId}, the chain payments run on.`);
  if (!expected.nonce || fields.nonce !== expected.nonce)
    throw refuse("The sign-in message's nonce was not issued to this browser, or it expired. Start the sign-in again.");
  const issuedAt = fields.issuedAt.getTime();
  if (Number.isNaN(issuedAt) || issuedAt > expected.now + CLOCK_SKEW_MS || issuedAt < expected.now - SIWE_MAX_AGE_MS) {
    throw refuse("The sign-in message is too old or dated in the future. Start the sign-in again.");
  }
  // The remaining rules of the standard: version, nonce shape, expiration and not-before, address shape.
  if (!validateSiweMessage({ message: fields, domain: expected.domain, nonce: expected.nonce, time: new Date(expected.now) })) {
    throw refuse("The sign-in message is expired or not valid.");
  }
  if (!isHex(input.signature) || !(await verifyMessage({ address: fields.address, message: input.message, signature: input.signature }).catch(() => false))) {
    throw refuse("The signature does not match the sign-in message's wallet.");
  }
  return { address: getAddress(fields.address), chainId: fields.chainId, nonce: fields.nonce };
}

function sameOrigin(uri: string, origin: string): boolean {
  try {
    return new URL(uri).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}
