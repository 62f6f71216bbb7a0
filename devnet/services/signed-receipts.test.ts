import { verifyReceiptSignatureEIP712, type EIP712SignedReceipt } from "@x402/extensions/offer-receipt";
import { describe, expect, it } from "vitest";
import { devAccounts } from "../chain/dev-accounts";
import { signedReceiptsExtension } from "./signed-receipts";

const { merchant, user } = devAccounts();
const TX = `0x${"ab".repeat(32)}`;

/** What @x402/core hands the extension after a successful settlement. */
function settledContext() {
  return {
    result: { success: true, payer: user.address, network: "eip155:31337", transaction: TX },
    transportContext: { request: { adapter: { getUrl: () => "http://127.0.0.1:4021/weather?city=Lisbon" } } },
  };
}

async function receiptFor(wrongKey: boolean): Promise<EIP712SignedReceipt> {
  const extension = signedReceiptsExtension({
    serviceName: "weather",
    terms: { payTo: merchant.address, payeeKey: merchant.privateKey },
    faults: { signsReceiptsWithWrongKey: (name) => wrongKey && name === "weather" },
  });
  const enriched = (await extension.enrichSettlementResponse?.(undefined, settledContext() as never)) as { info: { receipt: EIP712SignedReceipt } };
  return enriched.info.receipt;
}

describe("signedReceiptsExtension", () => {
  it("signs each receipt with the payee's key, naming the settlement", async () => {
    const receipt = await receiptFor(false);
    expect(receipt.payload).toMatchObject({
      version: 1,
      network: "eip155:31337",
      payer: user.address,
      transaction: TX,
      resourceUrl: "http://127.0.0.1:4021/weather?city=Lisbon",
    });
    expect((await verifyReceiptSignatureEIP712(receipt)).signer).toBe(merchant.address);
  });

  it("signs with another, stable key while the wrongReceiptSigner fault names the service", async () => {
    const [first, second] = [await receiptFor(true), await receiptFor(true)];
    const signer = (await verifyReceiptSignatureEIP712(first)).signer;
    expect(signer).not.toBe(merchant.address);
    expect((await verifyReceiptSignatureEIP712(second)).signer).toBe(signer);
  });

  it("refuses a key that is not the payee's, and no key at all", () => {
    const faults = { signsReceiptsWithWrongKey: () => false };
    expect(() => signedReceiptsExtension({ serviceName: "weather", terms: { payTo: merchant.address, payeeKey: user.privateKey }, faults })).toThrow(
      /not for the payee/,
    );
    expect(() => signedReceiptsExtension({ serviceName: "weather", terms: { payTo: merchant.address }, faults })).toThrow(/payee's key/);
  });
});
