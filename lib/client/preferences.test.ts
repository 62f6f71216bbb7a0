import { describe, expect, it } from "vitest";
import { validateLimitsDraft } from "./preferences";

describe("validateLimitsDraft", () => {
  it("leaves empty fields to the server's defaults", () => {
    expect(validateLimitsDraft({ perPayment: "", perRequest: " ", daily: "" })).toEqual({ ok: true, limits: undefined });
    expect(validateLimitsDraft({ perPayment: "0.5", perRequest: "", daily: "10" })).toEqual({ ok: true, limits: { perPayment: "0.5", daily: "10" } });
  });

  it("names each invalid field with the server schema's message", () => {
    const result = validateLimitsDraft({ perPayment: "1.1234567", perRequest: "-1", daily: "abc" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.errors).sort()).toEqual(["daily", "perPayment", "perRequest"]);
  });
});
