import { describe, expect, it } from "vitest";
import { describeProgress, progressReporter, type ProgressNotification } from "./progress";

const HASH = `0x${"ab".repeat(32)}`;

describe("payment progress as MCP progress notifications", () => {
  it("describes a step with what, how much and the hash it names", () => {
    expect(describeProgress({ id: "pay_1", status: "quoted", service: "Devnet Weather", amount: "0.01", message: "Devnet Weather asks 0.01 USDC." })).toBe(
      "quoted (Devnet Weather, 0.01 USDC): Devnet Weather asks 0.01 USDC.",
    );
    expect(describeProgress({ id: "pay_1", status: "delivered", txHash: HASH })).toBe(`delivered (${HASH})`);
    expect(describeProgress({ id: "pay_1", status: "signing" })).toBe("signing");
  });

  it("sends nothing without a progress token", () => {
    const sent: ProgressNotification[] = [];
    const report = progressReporter(undefined, async (notification) => {
      sent.push(notification);
    });
    report({ id: "pay_1", status: "quoted" });
    expect(sent).toEqual([]);
  });

  it("sends one notification per step with the client's token and a progress that only grows", () => {
    const sent: ProgressNotification[] = [];
    const report = progressReporter("token-7", async (notification) => {
      sent.push(notification);
    });
    for (const status of ["quoted", "signing", "settling", "delivered"] as const) report({ id: "pay_1", status });
    expect(sent.map((notification) => notification.params.progressToken)).toEqual(["token-7", "token-7", "token-7", "token-7"]);
    expect(sent.map((notification) => notification.params.progress)).toEqual([1, 2, 3, 4]);
    expect(sent.map((notification) => notification.params.message)).toEqual(["quoted", "signing", "settling", "delivered"]);
    expect(sent.every((notification) => notification.method === "notifications/progress")).toBe(true);
  });

  it("drops a notification that cannot be sent: progress never fails a payment", async () => {
    const report = progressReporter(3, () => Promise.reject(new Error("client gone")));
    expect(() => report({ id: "pay_1", status: "signing" })).not.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
});
