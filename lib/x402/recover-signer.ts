import "server-only";
/**
 * The address that signed a 32-byte digest (ECDSA on secp256k1, as Ethereum signs). Every
 * delivered payment's receipt is checked this way, on the payment's path: in pure JavaScript
 * (viem, noble) one recovery costs about 2.8 ms of CPU on the benchmark machine, against
 * about 0.1 ms in libsecp256k1. So the native library is used when its prebuilt binary loads
 * (`secp256k1` ships one per platform; nothing is compiled or downloaded), and viem otherwise.
 * Both give the same answer for every valid signature; anything the native one refuses goes
 * to viem, so the two can never disagree about what is valid.
 */
import { createRequire } from "node:module";
import { getAddress, hexToBytes, keccak256, recoverAddress, toHex, type Address, type Hex } from "viem";

type NativeSecp256k1 = { ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array };

let native: NativeSecp256k1 | null | undefined;

function loadNative(): NativeSecp256k1 | null {
  if (native !== undefined) return native;
  try {
    // The binding only: its pure-JS fallback (elliptic) would be slower than viem's.
    native = createRequire(import.meta.url)("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    native = null;
  }
  return native;
}

export async function recoverSigner(digest: Hex, signature: Hex): Promise<Address> {
  const binding = loadNative();
  const bytes = hexToBytes(signature);
  if (binding && bytes.length === 65 && /^0x[0-9a-fA-F]{64}$/.test(digest)) {
    const v = bytes[64] ?? 0;
    const recid = v >= 27 ? v - 27 : v;
    if (recid === 0 || recid === 1) {
      try {
        const publicKey = binding.ecdsaRecover(bytes.subarray(0, 64), recid, hexToBytes(digest), false);
        return getAddress(`0x${keccak256(toHex(publicKey.subarray(1))).slice(-40)}`);
      } catch {
        // Refused natively (e.g. a high-s signature): viem decides.
      }
    }
  }
  return recoverAddress({ hash: digest, signature });
}
