/**
 * The specification's settlement headers through our reader: the transaction hash we go on to
 * check on chain, success or failure, and the reason a failure gives.
 */
import { encodePaymentResponseHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { readPaymentRequired } from "@/lib/x402/payment-requirements";
import { readSettlement } from "@/lib/x402/read-settlement";
import {
  v1OnlyErrorCodes,
  v1PaymentFailedBody,
  v1SettlementFailure,
  v1SettlementSuccess,
  v2ErrorCodes,
  v2SettlementFailure,
  v2SettlementSuccess,
  v2SettlementWithAmount,
} from "./fixtures/settlement";
import { SPEC } from "./fixtures/spec-fixture";

describe.each([v2SettlementSuccess, v1SettlementSuccess])("$name ($source)", ({ value }) => {
  it("decodes to what the spec says it does", () => {
    expect(JSON.parse(Buffer.from(value.header, "base64").toString("utf8"))).toEqual(value.decoded);
  });

  it("reads a successful settlement: its transaction hash, network and payer", () => {
    expect(readSettlement(new Headers({ [value.headerName]: value.header }))).toEqual({
      success: true,
      transaction: SPEC.transaction,
      network: value.decoded.network,
      payer: SPEC.payer,
    });
  });
});

describe.each([v2SettlementFailure, v1SettlementFailure])("$name ($source)", ({ value }) => {
  it("decodes to what the spec says it does", () => {
    expect(JSON.parse(Buffer.from(value.header, "base64").toString("utf8"))).toEqual(value.decoded);
  });

  it("reads a failed settlement: no transaction (the spec's empty string), the reason kept", () => {
    const settlement = readSettlement(new Headers({ [value.headerName]: value.header }));
    expect(settlement).toEqual({ success: false, errorReason: "insufficient_funds", network: value.decoded.network, payer: SPEC.payer });
    expect(settlement?.transaction).toBeUndefined();
  });
});

describe("header names", () => {
  it("reads the v2 header before the v1 one when a service sends both", () => {
    const headers = new Headers({ "PAYMENT-RESPONSE": v2SettlementSuccess.value.header, "X-PAYMENT-RESPONSE": v1SettlementFailure.value.header });
    expect(readSettlement(headers)).toMatchObject({ success: true, network: SPEC.network });
  });

  it("reads headers whatever their case (HTTP header names are case-insensitive)", () => {
    expect(readSettlement(new Headers({ "x-payment-response": v1SettlementSuccess.value.header }))?.transaction).toBe(SPEC.transaction);
  });
});

describe(`${v2SettlementWithAmount.name} (${v2SettlementWithAmount.source})`, () => {
  it("still reads the settlement when the optional amount is present", () => {
    const header = encodePaymentResponseHeader(v2SettlementWithAmount.value as never);
    expect(readSettlement(new Headers({ "PAYMENT-RESPONSE": header }))).toMatchObject({ success: true, transaction: SPEC.transaction, network: SPEC.network });
  });
});

describe(`error reason codes (${v2ErrorCodes.source}; ${v1OnlyErrorCodes.source})`, () => {
  it.each([...v2ErrorCodes.value, ...v1OnlyErrorCodes.value])("keeps %s as a failed settlement's reason", (code) => {
    const header = encodePaymentResponseHeader({ success: false, errorReason: code, transaction: "", network: SPEC.network, payer: SPEC.payer } as never);
    expect(readSettlement(new Headers({ "PAYMENT-RESPONSE": header }))).toEqual({
      success: false,
      errorReason: code,
      network: SPEC.network,
      payer: SPEC.payer,
    });
  });
});

describe(`${v1PaymentFailedBody.name} (${v1PaymentFailedBody.source})`, () => {
  const { header, body } = v1PaymentFailedBody.value;
  const headers = new Headers({ [header.value.headerName]: header.value.header });

  it("reports the failed settlement from the header and the service's message from the body", () => {
    expect(readSettlement(headers)).toMatchObject({ success: false, errorReason: "insufficient_funds" });
    expect(readPaymentRequired(headers, body)).toMatchObject({
      x402Version: 1,
      error: "Payment failed: insufficient funds",
      accepts: [{ maxAmountRequired: "10000" }],
    });
  });

  it("is no readable 402 in v2, where the failure comes with an empty `{}` body (specs/transports-v2/http.md §Settlement Response Delivery)", () => {
    const v2Headers = new Headers({ "PAYMENT-RESPONSE": v2SettlementFailure.value.header });
    expect(readPaymentRequired(v2Headers, {})).toBeUndefined();
    expect(readSettlement(v2Headers)?.errorReason).toBe("insufficient_funds");
  });
});
