import { x402Facilitator } from "@x402/core/facilitator";
import type { Network } from "@x402/core/types";
import type { FacilitatorEvmSigner } from "@x402/evm";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/facilitator";
import { UptoEvmScheme } from "@x402/evm/upto/facilitator";

export type CreateFacilitatorOptions = {
  signer: FacilitatorEvmSigner;
  /** CAIP-2 network for x402 v2, e.g. "eip155:31337". */
  network: Network;
  /** The same chain's x402 v1 name (see lib/network/local-v1-network.ts). */
  v1Network: string;
};

/**
 * The facilitator role from @x402/core with @x402/evm's schemes, on the local chain only: exact
 * for x402 v2 and v1, and upto (Permit2, through the x402 upto proxy) for v2. Exact's simulation
 * before settling stays off (the library's default): verify has just simulated the same
 * transfer. Upto always simulates before settling (not configurable in @x402/evm 2.27).
 *
 * And batch-settlement (payment channels, through the devnet's x402BatchSettlement contract) for
 * v2, with no authorizer key of its own: a facilitator that signs claims and refunds for the
 * services must authenticate who asks it to refund (the scheme's security rules), and this one
 * has no such check, so it advertises no `receiverAuthorizer` and each channel service signs its
 * own claims and refunds with the payee's key.
 */
export function createFacilitator(options: CreateFacilitatorOptions): x402Facilitator {
  return new x402Facilitator()
    .register(options.network, new ExactEvmScheme(options.signer))
    .register(options.network, new UptoEvmScheme(options.signer))
    .register(options.network, new BatchSettlementEvmScheme(options.signer))
    .registerV1(options.v1Network as Network, new ExactEvmSchemeV1(options.signer));
}
