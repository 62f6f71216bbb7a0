/**
 * An in-process listener hears a run's events as objects, held to the same schemas and ordering
 * rules as the chat's stream writer: what MCP is told is what the chat could have sent.
 */
import { describe, expect, it } from "vitest";
import { ProtocolViolationError, StreamWriter } from "../stream";
import { CheckedRunListener, type RunListener } from "./run-listener";

describe("CheckedRunListener", () => {
  it("hears text, progress, errors and the finish as objects, in order, as they happen", () => {
    const heard: string[] = [];
    const listener = new CheckedRunListener((event) => heard.push(event.type));
    listener.text("Buying ");
    listener.text("");
    listener.payment({ id: "pay_1", status: "quoted", amount: "0.01" });
    listener.payment({ id: "pay_1", status: "delivered" });
    listener.error({ code: "model_error", message: "The model failed." });
    expect(listener.isClosed).toBe(false);
    listener.finish({ finishReason: "payment-complete", txHash: null, payments: [] });
    expect(heard).toEqual(["text", "payment", "payment", "error", "finish"]);
    expect(listener.payments.map((payment) => payment.status)).toEqual(["quoted", "delivered"]);
    expect(listener.payments[0]?.at).toEqual(expect.any(Number));
    expect(listener.events.at(-1)).toMatchObject({ type: "finish", finish: { protocolVersion: 1, finishReason: "payment-complete" } });
    expect(listener.isClosed).toBe(true);
    expect(listener.statusOf("pay_1")).toBe("delivered");
  });

  it("refuses what the stream would refuse: a step backwards, a second finish, a malformed event", () => {
    const listener = new CheckedRunListener();
    listener.payment({ id: "pay_1", status: "settling" });
    expect(() => listener.payment({ id: "pay_1", status: "quoted" })).toThrow(ProtocolViolationError);
    expect(() => listener.payment({ id: "pay_1", status: "nonsense" } as never)).toThrow();
    listener.finish({ finishReason: "stop", txHash: null, payments: [] });
    expect(() => listener.text("more")).toThrow(ProtocolViolationError);
    expect(listener.events.map((event) => event.type)).toEqual(["payment", "finish"]);
  });

  it("keeps hearing when its own callback fails: a notification never decides a payment", () => {
    const listener = new CheckedRunListener(() => {
      throw new Error("the client went away");
    });
    expect(() => listener.payment({ id: "pay_1", status: "quoted" })).not.toThrow();
    expect(listener.payments).toHaveLength(1);
  });

  it("is what the chat's stream writer is too, so a run reports to either the same way", () => {
    const writer: RunListener = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
    expect(writer.isClosed).toBe(false);
  });
});
