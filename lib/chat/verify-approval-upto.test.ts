/**
 * A metered (`upto`) approval: the user's wallet signs a Permit2 witness permit for the quote's
 * ceiling, and the second request is held to the quote exactly as an `exact` one is: signer,
 * payee, ceiling, token, spender, facilitator, window and the HMAC nonce (carried as a uint256).
 */
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { offlineNetwork } from "../../tests/support/offline-fixtures";
import type { ApprovalRequest } from "../stream";
import { ApprovalRequest as ApprovalRequestSchema } from "../stream";
import { walletTypedDataOf } from "../x402/approval-typed-data";
import { quoteNonce } from "../x402/authorization-nonce";
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from "../x402/payment-signature-header";
import { selectPayableRequirement } from "../x402/payment-requirements";
import { buildUptoTypedData, permit2NonceOf, PERMIT2 } from "../x402/upto-permit2";
import { verifyApproval } from "./verify-approval";

const SECRET = "a-quote-secret-of-enough-length-for-tests";
// Anvil's well-known dev keys: test signers, never funded anywhere real.
const user = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const other = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const payTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const facilitator = "0x976EA74026E726554dB657fA54763abd0C3a0aa9";
const URL_ = "https://meter.example/rows?rows=3";
const CEILING = "100000";

async function uptoQuote(signer = user) {
  const requirement = {
    scheme: "upto",
    network: offlineNetwork.caip2,
    amount: CEILING,
    asset: offlineNetwork.usdc,
    payTo,
    maxTimeoutSeconds: 120,
    extra: {
      name: offlineNetwork.usdcName,
      version: offlineNetwork.usdcVersion,
      assetTransferMethod: "permit2",
      facilitatorAddress: facilitator,
      metering: { unit: "row", unitPrice: "500" },
    },
  };
  const selection = selectPayableRequirement({ x402Version: 2, accepts: [requirement] }, offlineNetwork, { schemes: ["exact", "upto"] });
  if (!selection.ok) throw new Error(selection.reason);
  const option = selection.option;
  const now = Math.floor(Date.now() / 1000);
  const validAfter = BigInt(now - 5);
  const validBefore = BigInt(now + 300);
  const nonce = quoteNonce(SECRET, {
    payer: user.address,
    option,
    chainId: offlineNetwork.chainId,
    url: URL_,
    method: "GET",
    validAfter,
    validBefore,
    intent: "",
  });
  const typedData = buildUptoTypedData(option, offlineNetwork.chainId, { validAfter, deadline: validBefore, nonce });
  const approval: ApprovalRequest = ApprovalRequestSchema.parse({
    method: "GET",
    resource: URL_,
    amount: "0.1",
    asset: option.asset,
    network: option.network,
    payTo: option.payTo,
    expiresAt: Number(validBefore),
    x402Version: 2,
    scheme: "upto",
    requirements: option.requirements,
    typedData,
    payer: user.address,
    ceiling: "0.1",
    metering: { unitPrice: "0.0005", unit: "row" },
    permit2Approval: { spender: PERMIT2, token: option.asset },
  });
  const signature = await signer.signTypedData(walletTypedDataOf(approval));
  return { approval, signature, nonce, validBefore };
}

const verify = (header: string, now = Date.now()) =>
  verifyApproval({ header, walletAddress: user.address, network: offlineNetwork, quoteSecret: SECRET, now, serviceName: () => "Row meter" });

type Permit = {
  from: string;
  permitted: { token: string; amount: string };
  spender: string;
  nonce: string;
  deadline: string;
  witness: { to: string; facilitator: string; validAfter: string };
};
type Payload = { accepted: Record<string, unknown>; payload: { authorization: Permit } };

/** The header with its JSON changed, as an attacker or a buggy client might send it. */
function tamper(header: string, change: (payload: Payload) => void): string {
  const payload = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as Payload;
  change(payload);
  return Buffer.from(JSON.stringify(payload)).toString("base64");
}

describe("verifyApproval for a metered (upto) approval", () => {
  it("round-trips the permit through the header and returns it bound to the quote", async () => {
    const { approval, signature, nonce, validBefore } = await uptoQuote();
    const header = encodePaymentSignatureHeader(approval, signature);
    const decoded = decodePaymentSignatureHeader(header);
    expect(decoded?.payload.authorization).toEqual({ from: user.address, ...approval.typedData.message });
    expect((decoded?.payload.authorization as Permit).nonce).toBe(permit2NonceOf(nonce).toString());

    const approved = await verify(header);
    expect(approved.typedData).toEqual(approval.typedData);
    expect(approved).toMatchObject({ nonce, validBefore, signature, method: "GET", url: URL_ });
    expect(approved.option.upto).toEqual({ facilitator, unitPrice: 500n });
    expect(approved.option.amount).toBe(100_000n);
  });

  it("refuses a tampered ceiling, with or without the accepted requirement changed to match", async () => {
    const { approval, signature } = await uptoQuote();
    const header = encodePaymentSignatureHeader(approval, signature);
    await expect(verify(tamper(header, (payload) => (payload.payload.authorization.permitted.amount = "1000000")))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
    const raised = tamper(header, (payload) => {
      payload.payload.authorization.permitted.amount = "1000000";
      payload.accepted.amount = "1000000";
    });
    await expect(verify(raised)).rejects.toMatchObject({ code: "payment_required:mismatch" });
  });

  it("refuses a tampered payee", async () => {
    const { approval, signature } = await uptoQuote();
    const header = encodePaymentSignatureHeader(approval, signature);
    const redirected = tamper(header, (payload) => {
      payload.payload.authorization.witness.to = other.address;
      payload.accepted.payTo = other.address;
    });
    await expect(verify(redirected)).rejects.toMatchObject({ code: "payment_required:mismatch" });
  });

  it("refuses a tampered nonce, facilitator or spender", async () => {
    const { approval, signature } = await uptoQuote();
    const header = encodePaymentSignatureHeader(approval, signature);
    await expect(verify(tamper(header, (payload) => (payload.payload.authorization.nonce = "12345")))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
    // A nonce wider than the quote's 32 bytes is no quote's.
    await expect(verify(tamper(header, (payload) => (payload.payload.authorization.nonce = "9".repeat(78))))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
    await expect(verify(tamper(header, (payload) => (payload.payload.authorization.witness.facilitator = other.address)))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
    await expect(verify(tamper(header, (payload) => (payload.payload.authorization.spender = other.address)))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
  });

  it("refuses another wallet's signature, and a permit sent for another walletAddress", async () => {
    const { approval, signature } = await uptoQuote(other);
    await expect(verify(encodePaymentSignatureHeader(approval, signature))).rejects.toMatchObject({ code: "payment_required:invalid_signature" });
    const mine = await uptoQuote();
    const header = encodePaymentSignatureHeader(mine.approval, mine.signature);
    await expect(
      verifyApproval({ header, walletAddress: other.address, network: offlineNetwork, quoteSecret: SECRET, now: Date.now(), serviceName: () => "x" }),
    ).rejects.toMatchObject({ code: "payment_required:mismatch" });
  });

  it("refuses a permit presented for an exact requirement, and a permit past its deadline", async () => {
    const { approval, signature, validBefore } = await uptoQuote();
    const header = encodePaymentSignatureHeader(approval, signature);
    await expect(verify(tamper(header, (payload) => (payload.accepted.scheme = "exact")))).rejects.toMatchObject({ code: "payment_required:mismatch" });
    await expect(verify(header, Number(validBefore) * 1000)).rejects.toMatchObject({ code: "payment_required:expired" });
  });
});
