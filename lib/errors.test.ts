import { describe, expect, it } from "vitest";
import { AppError, asAppError, ERROR_DEFINITIONS, problemResponse, type ErrorCode } from "./errors";

describe("AppError", () => {
  it.each(Object.keys(ERROR_DEFINITIONS) as ErrorCode[])("%s renders a problem body with its status", async (code) => {
    const response = problemResponse(new AppError(code), () => {});
    const body = await response.json();
    expect(response.status).toBe(ERROR_DEFINITIONS[code].status);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(body).toMatchObject({
      status: ERROR_DEFINITIONS[code].status,
      title: ERROR_DEFINITIONS[code].title,
      detail: ERROR_DEFINITIONS[code].message,
      code,
    });
    expect(body.type).toMatch(/^https:\/\//);
  });

  it("lists field errors and sets Retry-After and extra headers", async () => {
    const error = new AppError("rate_limited", {
      retryAfterSeconds: 12.2,
      headers: { RateLimit: "limit=20, remaining=0, reset=13" },
    });
    const response = problemResponse(error, () => {});
    expect(response.headers.get("retry-after")).toBe("13");
    expect(response.headers.get("ratelimit")).toBe("limit=20, remaining=0, reset=13");
    const invalid = problemResponse(new AppError("bad_request:body", { errors: [{ path: "messages.0.role", message: "Invalid option" }] }), () => {});
    expect((await invalid.json()).errors).toEqual([{ path: "messages.0.role", message: "Invalid option" }]);
  });

  it("never leaks the details of an unexpected error, but logs them under the same instance id", async () => {
    const logged: Record<string, unknown>[] = [];
    const response = problemResponse(new Error("connect ECONNREFUSED 10.0.0.5:6379 password=hunter2"), (entry) => logged.push(entry));
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(text).not.toMatch(/ECONNREFUSED|hunter2|10\.0\.0\.5/);
    expect(logged[0]?.details).toMatch(/ECONNREFUSED/);
    expect(JSON.parse(text).instance).toBe(logged[0]?.instance);
  });

  it("is recognised by marker, not by class identity", () => {
    const error = new AppError("internal");
    expect(AppError.isInstance(error)).toBe(true);
    expect(AppError.isInstance(new Error("x"))).toBe(false);
    expect(asAppError(error)).toBe(error);
  });
});
