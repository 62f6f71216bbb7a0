import { EVM_NETWORK_CHAIN_ID_MAP } from "@x402/evm/v1";

/**
 * The x402 v1 name of the local chain.
 *
 * x402 v1 names networks with plain words ("base", "base-sepolia") instead of CAIP-2 ids, and
 * @x402/evm's v1 scheme turns a name into the chain id it signs for (the EIP-712 domain's
 * `chainId`) through a fixed table, `EVM_NETWORK_CHAIN_ID_MAP`, which has no local chain. A v1
 * payment on anvil therefore needs one more entry in that table, on the payer's side and on
 * the facilitator's. The devnet's v1 services advertise this name (it is also in the devnet
 * coordinates file as `v1Network`).
 */
export const LOCAL_V1_NETWORK = "anvil";

/**
 * Teaches @x402/evm's v1 scheme the local chain's name, so that it can sign and verify v1
 * payments there. Call it once before paying a v1 service of the local world. Idempotent;
 * refuses to re-point a name that already means another chain (including every public one).
 *
 * @example registerLocalV1Network(coordinates.chainId, coordinates.v1Network);
 */
export function registerLocalV1Network(chainId: number, name: string = LOCAL_V1_NETWORK): void {
  // The table is typed as a closed set of names, but at run time it is the plain object the
  // v1 scheme reads on every call.
  const table = EVM_NETWORK_CHAIN_ID_MAP as Record<string, number>;
  const existing = table[name];
  if (existing === chainId) return;
  if (existing !== undefined) {
    throw new Error(`x402 v1 network "${name}" already means chain ${existing}, not ${chainId}`);
  }
  table[name] = chainId;
}
