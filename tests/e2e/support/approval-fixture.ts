/** Builders for scripted "my wallet" quotes: the payment fields and the approval request. */
import type { ApprovalRequest } from "../../../lib/stream";

export const PAY_TO = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
export const WEATHER_RESOURCE = "http://127.0.0.1:4021/weather?city=Lisbon";

/** The fields of a 0.01 USDC weather quote, as `p:` events carry them. */
export function quoteFor(chainId: number) {
  return { service: "Weather Now", resource: WEATHER_RESOURCE, amount: "0.01", payTo: PAY_TO, network: `eip155:${chainId}` };
}

/** An approval request for 0.01 USDC, valid for 5 minutes, to be signed by `from`. */
export function approvalFixture({ from, usdc, chainId }: { from: string; usdc: string; chainId: number }): ApprovalRequest {
  const now = Math.floor(Date.now() / 1000);
  const network = `eip155:${chainId}`;
  return {
    method: "GET",
    resource: WEATHER_RESOURCE,
    amount: "0.01",
    asset: usdc,
    network,
    payTo: PAY_TO,
    expiresAt: now + 300,
    x402Version: 2,
    scheme: "exact",
    requirements: { scheme: "exact", network, amount: "10000", payTo: PAY_TO, asset: usdc },
    typedData: {
      domain: { name: "USD Coin", version: "2", chainId, verifyingContract: usdc },
      types: {
        TransferWithAuthorization: [
          { name: "from", type: "address" },
          { name: "to", type: "address" },
          { name: "value", type: "uint256" },
          { name: "validAfter", type: "uint256" },
          { name: "validBefore", type: "uint256" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "TransferWithAuthorization",
      message: {
        from,
        to: PAY_TO,
        value: "10000",
        validAfter: String(now - 60),
        validBefore: String(now + 300),
        nonce: `0x${"5a".repeat(32)}`,
      },
    },
  };
}
