/**
 * The second request of a wallet approval is checked against the quote the server froze,
 * body included: the user's signature pays for the body they were shown, and no other.
 */
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { offlineNetwork } from "../../tests/support/offline-fixtures";
import type { ApprovalRequest } from "../stream";
import { quoteNonce } from "../x402/authorization-nonce";
import { encodePaymentSignatureHeader } from "../x402/payment-signature-header";
import { selectPayableRequirement } from "../x402/payment-requirements";
import type { RequestContentType } from "../x402/request-body";
import { buildTransferTypedData, toViemTypedData } from "../x402/transfer-authorization";
import { verifyApproval } from "./verify-approval";

const SECRET = "a-quote-secret-of-enough-length-for-tests";
// Anvil's well-known second dev key: a test signer, never funded anywhere real.
const user = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const payTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const URL_ = "https://svc.example/translate";

async function quote(body: string | undefined, method = "POST", contentType?: RequestContentType, extensions?: Record<string, unknown>) {
  const selection = selectPayableRequirement(
    {
      x402Version: 2,
      accepts: [
        {
          scheme: "exact",
          network: offlineNetwork.caip2,
          amount: "10000",
          asset: offlineNetwork.usdc,
          payTo,
          maxTimeoutSeconds: 60,
          extra: { name: offlineNetwork.usdcName, version: offlineNetwork.usdcVersion },
        },
      ],
    },
    offlineNetwork,
  );
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
    method,
    validAfter,
    validBefore,
    intent: "",
    body,
    contentType,
    extensions,
  });
  const typedData = buildTransferTypedData(option, user.address, offlineNetwork.chainId, { validAfter, validBefore, nonce });
  const approval: ApprovalRequest = {
    method,
    resource: URL_,
    amount: "0.01",
    asset: option.asset,
    network: option.network,
    payTo: option.payTo,
    expiresAt: Number(validBefore),
    x402Version: 2,
    scheme: "exact",
    requirements: option.requirements,
    typedData,
    ...(body === undefined ? {} : { body }),
    ...(contentType === undefined ? {} : { contentType }),
    ...(extensions === undefined ? {} : { extensions }),
  };
  const signature = await user.signTypedData(toViemTypedData(typedData));
  return { approval, signature };
}

const verify = (header: string) =>
  verifyApproval({ header, walletAddress: user.address, network: offlineNetwork, quoteSecret: SECRET, now: Date.now(), serviceName: () => "Translator" });

describe("verifyApproval and the quoted body", () => {
  it("returns the body with the content type the signature was made for", async () => {
    const { approval, signature } = await quote("email=a%40b.example", "POST", "application/x-www-form-urlencoded");
    const approved = await verify(encodePaymentSignatureHeader(approval, signature));
    expect(approved).toMatchObject({ body: "email=a%40b.example", contentType: "application/x-www-form-urlencoded" });
  });

  it("refuses the same body and signature with another content type, or with none", async () => {
    const { approval, signature } = await quote("email=a%40b.example", "POST", "application/x-www-form-urlencoded");
    await expect(verify(encodePaymentSignatureHeader({ ...approval, contentType: "application/json" }, signature))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
    await expect(verify(encodePaymentSignatureHeader({ ...approval, contentType: "text/plain; charset=utf-8" }, signature))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
    const { contentType: _dropped, ...untyped } = approval;
    await expect(verify(encodePaymentSignatureHeader(untyped, signature))).rejects.toMatchObject({ code: "payment_required:mismatch" });
  });

  it("reads a body quoted without a named type as JSON, which is how it was sent", async () => {
    const { approval, signature } = await quote('{"text":"hi"}');
    expect(await verify(encodePaymentSignatureHeader({ ...approval, contentType: "application/json" }, signature))).toMatchObject({
      contentType: "application/json",
    });
    await expect(verify(encodePaymentSignatureHeader({ ...approval, contentType: "text/plain; charset=utf-8" }, signature))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
  });

  it("refuses a content type on an approval quoted without a body", async () => {
    const { approval, signature } = await quote(undefined, "GET");
    await expect(verify(encodePaymentSignatureHeader({ ...approval, contentType: "application/json" }, signature))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
  });

  it("returns the body the signature was made for", async () => {
    const { approval, signature } = await quote('{"text":"hello","to":"fr"}');
    const approved = await verify(encodePaymentSignatureHeader(approval, signature));
    expect(approved).toMatchObject({ method: "POST", url: URL_, body: '{"text":"hello","to":"fr"}' });
  });

  it("refuses the same signature with another body, or with none", async () => {
    const { approval, signature } = await quote('{"text":"hello","to":"fr"}');
    await expect(verify(encodePaymentSignatureHeader({ ...approval, body: '{"text":"hello","to":"de"}' }, signature))).rejects.toMatchObject({
      code: "payment_required:mismatch",
    });
    const { body: _dropped, ...withoutBody } = approval;
    await expect(verify(encodePaymentSignatureHeader(withoutBody, signature))).rejects.toMatchObject({ code: "payment_required:mismatch" });
  });

  it("refuses a body added to an approval quoted without one", async () => {
    const { approval, signature } = await quote(undefined, "GET");
    expect(await verify(encodePaymentSignatureHeader(approval, signature))).not.toHaveProperty("body");
    await expect(verify(encodePaymentSignatureHeader({ ...approval, body: "{}" }, signature))).rejects.toMatchObject({ code: "payment_required:mismatch" });
  });
});

describe("verifyApproval and the echoed extensions", () => {
  const bazaar = { info: { input: { type: "http", method: "GET", queryParams: { city: "Lisbon" } } }, schema: { type: "object" } };
  const declared = { info: { required: false }, schema: { type: "object" } };
  const extensions = { bazaar, "payment-identifier": declared };

  it("returns the extensions the quote froze, to be sent to the service", async () => {
    const { approval, signature } = await quote(undefined, "GET", undefined, extensions);
    expect(await verify(encodePaymentSignatureHeader(approval, signature))).toMatchObject({ extensions });
  });

  it("refuses an extension changed, added or removed, like any changed term", async () => {
    const { approval, signature } = await quote(undefined, "GET", undefined, extensions);
    const changed = { ...extensions, bazaar: { ...bazaar, info: { input: { ...bazaar.info.input, queryParams: { city: "Porto" } } } } };
    const { bazaar: _removed, ...fewer } = extensions;
    for (const variant of [changed, { ...extensions, foo: { info: {} } }, fewer]) {
      await expect(verify(encodePaymentSignatureHeader({ ...approval, extensions: variant }, signature))).rejects.toMatchObject({
        code: "payment_required:mismatch",
      });
    }
    const { extensions: _all, ...none } = approval;
    await expect(verify(encodePaymentSignatureHeader(none, signature))).rejects.toMatchObject({ code: "payment_required:mismatch" });
  });

  it("refuses extensions added to an approval quoted without any, and returns none for it", async () => {
    const { approval, signature } = await quote(undefined, "GET");
    expect(await verify(encodePaymentSignatureHeader(approval, signature))).not.toHaveProperty("extensions");
    await expect(verify(encodePaymentSignatureHeader({ ...approval, extensions }, signature))).rejects.toMatchObject({ code: "payment_required:mismatch" });
  });
});
