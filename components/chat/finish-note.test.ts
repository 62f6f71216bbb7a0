import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, type ApprovalRequest, type FinishEvent } from "@/lib/stream";
import { finishWording } from "./finish-note";

const waiting: FinishEvent = {
  finishReason: "stop",
  txHash: null,
  payments: [],
  pendingApproval: { id: "p1", approval: { amount: "0.01" } as ApprovalRequest },
  protocolVersion: PROTOCOL_VERSION,
};

describe("finishWording", () => {
  it("waits for an approval only while it is open, and then says how it ended", () => {
    expect(finishWording(waiting)).toBe("Waiting for your approval of 0.01 USDC.");
    expect(finishWording(waiting, "open")).toBe("Waiting for your approval of 0.01 USDC.");
    expect(finishWording(waiting, "rejected")).toBe("You declined the payment of 0.01 USDC: nothing was paid.");
    expect(finishWording(waiting, "expired")).toBe("The quote for 0.01 USDC expired before you approved it: nothing was paid.");
    expect(finishWording(waiting, "approved")).toBe("You approved the payment of 0.01 USDC.");
    expect(finishWording({ ...waiting, pendingApproval: undefined, finishReason: "payment-failed" }, "rejected")).toBe("The payment failed.");
  });

  it("calls a metered quote a ceiling: up to its amount", () => {
    const metered = { ...waiting, pendingApproval: { id: "p1", approval: { amount: "0.1", scheme: "upto" } as ApprovalRequest } };
    expect(finishWording(metered)).toBe("Waiting for your approval of up to 0.1 USDC.");
    expect(finishWording(metered, "rejected")).toBe("You declined the payment of up to 0.1 USDC: nothing was paid.");
  });
});
