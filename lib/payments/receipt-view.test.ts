import { describe, expect, it } from "vitest";
import { readRecordedReceipt } from "../journal/recorded-receipt";
import { receiptCsvCells, toReceiptView } from "./receipt-view";

const SIGNER = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const TX = `0x${"ab".repeat(32)}`;

describe("receipt views", () => {
  it("shows a verified receipt's verdict with an ISO issue time, and flattens it for CSV", () => {
    const view = toReceiptView({ format: "eip712", signer: SIGNER, verified: true, issuedAt: 1_767_268_800, transaction: TX });
    expect(view).toEqual({
      format: "eip712",
      signer: SIGNER,
      verified: true,
      reason: null,
      issuedAt: "2026-01-01T12:00:00.000Z",
      transaction: TX,
      signed: null,
    });
    expect(receiptCsvCells(view)).toEqual([SIGNER, "true", null]);
    expect(receiptCsvCells(toReceiptView(undefined))).toEqual([null, null, null]);
  });

  it("reads a stored receipt back as text or object, and an unreadable one as unverified, never as none", () => {
    const stored = { format: "jws", signer: null, verified: false, reason: "its key is not a secp256k1 did:jwk" };
    expect(readRecordedReceipt(stored)).toEqual(stored);
    expect(readRecordedReceipt(JSON.stringify(stored))).toEqual(stored);
    for (const broken of ["{", { verified: "yes" }, 42]) {
      expect(readRecordedReceipt(broken)).toEqual({ format: null, signer: null, verified: false, reason: "the stored receipt is unreadable" });
    }
  });
});
