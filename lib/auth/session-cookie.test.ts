/** The session cookie: a valid token reads back; tampered, expired, foreign-key and malformed ones are refused. */
import { describe, expect, it } from "vitest";
import { createSessionToken, readSessionToken, sessionCookie, sessionOf, SESSION_COOKIE, type Session } from "./session-cookie";

const SECRET = "a-session-secret-of-at-least-32-characters";
const NOW = Date.UTC(2026, 0, 31, 12);
const session: Session = { address: "0x52908400098527886E0F7030069857D2E4169EE7", chainId: 31337, issuedAt: NOW, expiresAt: NOW + 60_000 };

function flipLastChar(text: string): string {
  return text.slice(0, -1) + (text.endsWith("A") ? "B" : "A");
}

describe("session token", () => {
  it("reads back what was signed", () => {
    expect(readSessionToken(createSessionToken(session, SECRET), SECRET, NOW + 1)).toEqual(session);
  });

  it("refuses a token whose payload was changed", () => {
    const [, signature] = createSessionToken(session, SECRET).split(".");
    const otherWallet = Buffer.from(JSON.stringify({ ...session, address: "0x1111111111111111111111111111111111111111" })).toString("base64url");
    expect(readSessionToken(`${otherWallet}.${signature}`, SECRET, NOW)).toBeUndefined();
  });

  it("refuses a token whose signature was changed", () => {
    expect(readSessionToken(flipLastChar(createSessionToken(session, SECRET)), SECRET, NOW)).toBeUndefined();
  });

  it("refuses a token signed with another secret", () => {
    expect(readSessionToken(createSessionToken(session, "another-secret-of-at-least-32-characters!"), SECRET, NOW)).toBeUndefined();
  });

  it("refuses an expired token, and accepts it until the last millisecond", () => {
    const token = createSessionToken(session, SECRET);
    expect(readSessionToken(token, SECRET, session.expiresAt - 1)).toEqual(session);
    expect(readSessionToken(token, SECRET, session.expiresAt)).toBeUndefined();
  });

  it("refuses a token issued in the future", () => {
    const token = createSessionToken({ ...session, issuedAt: NOW + 10 * 60_000, expiresAt: NOW + 20 * 60_000 }, SECRET);
    expect(readSessionToken(token, SECRET, NOW)).toBeUndefined();
  });

  it.each(["", "abc", "a.b.c", ".", `${Buffer.from("not json").toString("base64url")}.x`])("refuses the malformed token %j", (token) => {
    expect(readSessionToken(token, SECRET, NOW)).toBeUndefined();
  });

  it("refuses a correctly signed payload of the wrong shape", async () => {
    const { signValue } = await import("./signed-value");
    const payload = Buffer.from(JSON.stringify({ address: "nobody", chainId: 1, issuedAt: NOW, expiresAt: NOW + 1000 })).toString("base64url");
    expect(readSessionToken(`${payload}.${signValue("session", payload, SECRET)}`, SECRET, NOW)).toBeUndefined();
  });
});

describe("session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/, lasts until the session expires, and is Secure on https", () => {
    const cookie = sessionCookie(session, SECRET, { secure: true, now: NOW });
    expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[^;]+; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure$`));
    expect(sessionCookie(session, SECRET, { secure: false, now: NOW })).not.toMatch(/Secure/);
  });

  it("is read back from a request's Cookie header among others", () => {
    const value = sessionCookie(session, SECRET, { secure: false, now: NOW }).split(";")[0];
    const request = new Request("http://127.0.0.1/", { headers: { cookie: `theme=dark; ${value}; other=1` } });
    expect(sessionOf(request, SECRET, NOW)).toEqual(session);
    expect(sessionOf(new Request("http://127.0.0.1/"), SECRET, NOW)).toBeUndefined();
  });
});
