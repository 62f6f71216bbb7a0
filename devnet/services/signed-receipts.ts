/**
 * Signed offers and receipts for the demo services, with the x402 `offer-receipt` extension
 * (specs/extensions/extension-offer-and-receipt.md): every 402 carries an EIP-712 offer per
 * option, and every settled answer an EIP-712 receipt in its PAYMENT-RESPONSE. Both are signed
 * with the payee's own key, the spec's simplest signer authorization (§4.5.1, "`payTo` address
 * signing"), so a buyer can tie a receipt to the service with nothing but the quote it paid.
 */
import type { ResourceServerExtension } from "@x402/core/types";
import {
  createOfferEIP712,
  createOfferReceiptExtension,
  createReceiptEIP712,
  declareOfferReceiptExtension,
  OFFER_RECEIPT,
  type OfferReceiptIssuer,
  type SignTypedDataFn,
} from "@x402/extensions/offer-receipt";
import { keccak256, type Hex } from "viem";
import type { LocalAccount } from "viem";
import { localAccount } from "../../lib/crypto/secp256k1";
import type { DevnetFaults } from "../faults";
import type { PaymentTerms } from "./payment-terms";

/**
 * What a route declares to get offers and receipts. The transaction hash is included: the
 * spec leaves it out by default for privacy (§11), but a receipt that names the settlement is
 * one a buyer can match to what it paid, and the local world has nothing to hide.
 */
export const SIGNED_RECEIPTS_DECLARATION = declareOfferReceiptExtension({ includeTxHash: true });

export type SignedReceiptsOptions = {
  serviceName: string;
  terms: Pick<PaymentTerms, "payTo" | "payeeKey">;
  faults: Pick<DevnetFaults, "signsReceiptsWithWrongKey">;
};

/**
 * The resource-server extension of one service. Offers are always signed by the payee; a
 * receipt is signed by another key while the `wrongReceiptSigner` fault names the service.
 */
export function signedReceiptsExtension(options: SignedReceiptsOptions): ResourceServerExtension {
  const { payTo, payeeKey } = options.terms;
  if (!payeeKey) throw new Error("signed receipts need the payee's key (PaymentTerms.payeeKey)");
  const payee = localAccount(payeeKey);
  // A key that signs for a payee it is not must fail loudly here, not as unverified receipts later.
  if (payee.address.toLowerCase() !== payTo.toLowerCase()) throw new Error(`the payee key signs for ${payee.address}, not for the payee ${payTo}`);
  // Derived from the payee's key so it is stable across runs, and certainly someone else.
  const impostor = localAccount(keccak256(payeeKey));
  const issuer: OfferReceiptIssuer = {
    kid: `did:pkh:eip155:1:${payee.address}`,
    format: "eip712",
    issueOffer: (resourceUrl, input) => createOfferEIP712(resourceUrl, input, signerOf(payee)),
    issueReceipt: (resourceUrl, payer, network, transaction) => {
      const signer = options.faults.signsReceiptsWithWrongKey(options.serviceName) ? impostor : payee;
      return createReceiptEIP712({ resourceUrl, payer, network, transaction }, signerOf(signer));
    },
  };
  const extension = createOfferReceiptExtension(issuer);
  return {
    ...extension,
    // @x402/core (2.27) builds every 402 before settling, and writes the signed offers over the
    // route's declaration in the same object, so by settlement `includeTxHash` is gone. The
    // declaration is this module's own constant: pass it again.
    enrichSettlementResponse: async (_declaration, context) => extension.enrichSettlementResponse?.(SIGNED_RECEIPTS_DECLARATION[OFFER_RECEIPT], context),
  };
}

/** The extension's signing callback over a viem account. */
function signerOf(account: LocalAccount): SignTypedDataFn {
  // The extension passes its canonical types untyped; viem checks the message against them.
  return (parameters) => account.signTypedData(parameters as Parameters<LocalAccount["signTypedData"]>[0]) as Promise<Hex>;
}
