import "server-only";
/**
 * Each grant holder's payer key: the account that receives a pull from the user's grant and
 * pays the service with it, through the ordinary scheme modules (it signs an EIP-3009
 * authorization or a Permit2 permit as any payer does). One per wallet and chain, derived from
 * the relayer's key, so it needs no storage and every instance derives the same; it holds money
 * only while a payment is in flight, and what is left (float) goes back to the user.
 *
 * Derived from the relayer's key on purpose: grants name the relayer as their spender, so
 * changing that key ends every grant anyway. Sweep float back before changing it.
 */
import { createHmac } from "node:crypto";
import { hexToBytes, toHex, type Hex } from "viem";

/** secp256k1's group order: a private key is a number in [1, n). */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export function payerKeyOf(relayerPrivateKey: Hex, chainId: number, walletAddress: `0x${string}`): Hex {
  for (let counter = 0; ; counter++) {
    const digest = createHmac("sha256", hexToBytes(relayerPrivateKey))
      .update(`x402-agent grant payer v1|${chainId}|${walletAddress.toLowerCase()}|${counter}`)
      .digest();
    const candidate = BigInt(toHex(digest));
    // Out of range about once in 2^128 derivations; the next counter is as good.
    if (candidate > 0n && candidate < CURVE_ORDER) return toHex(digest);
  }
}
