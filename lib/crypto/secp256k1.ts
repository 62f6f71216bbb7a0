/**
 * ECDSA on secp256k1 (as Ethereum signs) through libsecp256k1 when its prebuilt binding loads,
 * viem (pure JavaScript, @noble/curves) otherwise. Measured on the benchmark machine: one
 * signature costs about 1.4 ms of CPU in JavaScript against 0.05 ms natively, one recovery
 * about 2.8 ms against 0.1 ms. Every paid turn signs and recovers several times (the agent's
 * authorization, the receipt it checks; in the local world the service's offer and receipt and
 * the facilitator's transaction), on a server whose CPU per turn is its throughput.
 *
 * Both give the same bytes: libsecp256k1 and @noble/curves both derive the nonce by RFC 6979
 * and normalize s to the lower half, which the test of this module checks signature by
 * signature. `secp256k1` ships one binary per platform; nothing is compiled or downloaded.
 *
 * No `server-only` marker: the local world (devnet/) signs with it too. Never imported by the
 * browser.
 */
import { createRequire } from "node:module";
import {
  getAddress,
  hashMessage,
  hashTypedData,
  hexToBytes,
  keccak256,
  recoverAddress,
  serializeSignature,
  serializeTransaction,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
  type NonceManager,
} from "viem";
import { privateKeyToAccount, toAccount } from "viem/accounts";

type NativeSecp256k1 = {
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
};

let native: NativeSecp256k1 | null | undefined;

/** The binding, or null where its binary does not load (then viem does the work). */
export function nativeSecp256k1(): NativeSecp256k1 | null {
  if (native !== undefined) return native;
  try {
    // The binding only: the package's pure-JS fallback (elliptic) would be slower than viem's.
    native = createRequire(import.meta.url)("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    native = null;
  }
  return native;
}

const DIGEST = /^0x[0-9a-fA-F]{64}$/;

/** The address that signed a 32-byte digest. */
export async function recoverSigner(digest: Hex, signature: Hex): Promise<Address> {
  const binding = nativeSecp256k1();
  const bytes = hexToBytes(signature);
  if (binding && bytes.length === 65 && DIGEST.test(digest)) {
    const v = bytes[64] ?? 0;
    const recid = v >= 27 ? v - 27 : v;
    if (recid === 0 || recid === 1) {
      try {
        const publicKey = binding.ecdsaRecover(bytes.subarray(0, 64), recid, hexToBytes(digest), false);
        return getAddress(`0x${keccak256(toHex(publicKey.subarray(1))).slice(-40)}`);
      } catch {
        // Refused natively (e.g. a high-s signature): viem decides, so the two never disagree.
      }
    }
  }
  return recoverAddress({ hash: digest, signature });
}

/**
 * A viem account for a private key that signs natively when it can: the same address,
 * signatures and serialized transactions as `privateKeyToAccount`, which it is where the
 * binding does not load.
 */
export function localAccount(privateKey: Hex, options: { nonceManager?: NonceManager } = {}): LocalAccount {
  const binding = nativeSecp256k1();
  const viemAccount = privateKeyToAccount(privateKey, options);
  if (!binding) return viemAccount;
  const key = hexToBytes(privateKey);

  const signDigest = (digest: Hex) => {
    const { signature, recid } = binding.ecdsaSign(hexToBytes(digest), key);
    return { r: toHex(signature.subarray(0, 32)), s: toHex(signature.subarray(32, 64)), yParity: recid, v: BigInt(27 + recid) };
  };

  return toAccount({
    address: viemAccount.address,
    nonceManager: options.nonceManager,
    async sign({ hash }) {
      return serializeSignature(signDigest(hash));
    },
    async signMessage({ message }) {
      return serializeSignature(signDigest(hashMessage(message)));
    },
    async signTypedData(typedData) {
      return serializeSignature(signDigest(hashTypedData(typedData)));
    },
    async signTransaction(transaction, { serializer = serializeTransaction } = {}) {
      // Blob transactions are signed without their sidecars, as viem signs them.
      const signable = transaction.type === "eip4844" ? { ...transaction, sidecars: false } : transaction;
      const signature = signDigest(keccak256(await serializer(signable)));
      return serializer(transaction, signature) as ReturnType<LocalAccount["signTransaction"]>;
    },
    signAuthorization: viemAccount.signAuthorization,
  });
}
