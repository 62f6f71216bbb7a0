import "server-only";
/**
 * A JWS receipt (offer-receipt spec §3.3, §5.5 "For JWS") checked without any network lookup.
 * The spec lets a verifier tie the key to the service by `payTo` signing (§4.5.1); for a JWS
 * that means an ES256K key whose Ethereum address is the payee, named in the header as a
 * `did:jwk` (the key itself, base64url JSON). A `did:web` would need a fetch outside the
 * guarded one, and an Ed25519 or P-256 key has no address to compare, so those stay unverified.
 */
import { extractJWSHeader, verifyReceiptSignatureJWS } from "@x402/extensions/offer-receipt";
import { getAddress, keccak256, type Address } from "viem";
import { z } from "zod";
import { serviceToken } from "./service-text";

const Coordinate = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "expected a 32-byte base64url coordinate");
const Secp256k1Jwk = z.object({ kty: z.literal("EC"), crv: z.literal("secp256k1"), x: Coordinate, y: Coordinate });

export type JwsReceiptCheck = { ok: true; signer: Address; payload: unknown } | { ok: false; signer: Address | null; reason: string };

export async function verifyJwsReceipt(jws: string): Promise<JwsReceiptCheck> {
  let header: { alg: string; kid?: string };
  try {
    header = extractJWSHeader(jws);
  } catch {
    return { ok: false, signer: null, reason: "its JWS header is unreadable" };
  }
  if (header.alg !== "ES256K")
    return { ok: false, signer: null, reason: `its JWS algorithm ${serviceToken(header.alg)} has no Ethereum address to match the payee` };
  const jwk = jwkOfKid(header.kid);
  if (!jwk) return { ok: false, signer: null, reason: "its key is not a secp256k1 did:jwk, the only kind checked without a network lookup" };
  const signer = addressOfJwk(jwk);
  try {
    const payload: unknown = await verifyReceiptSignatureJWS({ format: "jws", signature: jws }, { ...jwk });
    return { ok: true, signer, payload };
  } catch {
    return { ok: false, signer, reason: "its signature does not match its key" };
  }
}

/** The key a `did:jwk:<base64url JSON>` names, if it is a secp256k1 public key. */
function jwkOfKid(kid: string | undefined): z.infer<typeof Secp256k1Jwk> | undefined {
  if (typeof kid !== "string" || !kid.startsWith("did:jwk:")) return undefined;
  const encoded = kid.slice("did:jwk:".length).split("#")[0] ?? "";
  try {
    const parsed = Secp256k1Jwk.safeParse(JSON.parse(Buffer.from(encoded, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** An Ethereum address is the last 20 bytes of keccak256 over the public key's x‖y. */
function addressOfJwk(jwk: z.infer<typeof Secp256k1Jwk>): Address {
  const point = Buffer.concat([Buffer.from(jwk.x, "base64url"), Buffer.from(jwk.y, "base64url")]);
  return getAddress(`0x${keccak256(new Uint8Array(point)).slice(-40)}`);
}
