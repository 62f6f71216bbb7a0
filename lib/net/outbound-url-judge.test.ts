import { describe, expect, it } from "vitest";
import { createOutboundUrlJudge, knownAddresses } from "./outbound-url-judge";
import type { OutboundLookup } from "./outbound-lookup";

const INFRASTRUCTURE = ["http://127.0.0.1:8545", "http://127.0.0.1:4020", "https://facilitator.example/x402"];

describe("createOutboundUrlJudge", () => {
  const judge = createOutboundUrlJudge({ allowlist: ["127.0.0.1:4021", "devnet.internal"], infrastructure: INFRASTRUCTURE });

  it("refuses what the guarded fetch refuses by address: private, link-local, loopback off the allowlist", async () => {
    for (const url of [
      "http://10.0.0.1/weather",
      "http://169.254.169.254/latest/meta-data",
      "http://127.0.0.1:4999/weather",
      "http://[::1]:4021/",
      "http://0x7f.1:4999/",
      "http://localhost:4999/",
      "http://api.localhost/",
    ]) {
      expect(await judge(url), url).toBe("blocked_address");
    }
  });

  it("refuses the payment network's own servers on any path and spelling, allowlisted or not", async () => {
    for (const url of [
      "http://127.0.0.1:8545",
      "http://localhost:8545/rpc",
      "http://[::1]:4020/discovery/resources",
      "http://0.0.0.0:4020/settle",
      "https://facilitator.example/anything",
      "https://FACILITATOR.example./",
    ]) {
      expect(await judge(url), url).toBe("infrastructure");
    }
  });

  it("refuses URLs the guarded fetch refuses before connecting", async () => {
    expect(await judge("https://user:secret@api.example/")).toBe("credentials_in_url");
    expect(await judge("ftp://files.example/")).toBe("blocked_scheme");
    expect(await judge("not a url")).toBe("invalid_url");
  });

  it("keeps public addresses, allowlisted ones, and names it cannot judge without resolving them", async () => {
    for (const url of [
      "http://127.0.0.1:4021/weather",
      "https://93.184.215.14/",
      "http://devnet.internal:9000/",
      "https://weather.example/forecast",
      "http://localhost:4021/weather",
    ]) {
      expect(await judge(url), url).toBeUndefined();
    }
  });

  it("resolves no listed name, only an infrastructure server's own name, and that once", async () => {
    const asked: string[] = [];
    const lookup: OutboundLookup = async (hostname) => {
      asked.push(hostname);
      return [{ address: "10.1.2.3" }];
    };
    const named = createOutboundUrlJudge({ allowlist: ["10.0.0.0/8"], infrastructure: ["http://anvil.internal:8545"], lookup });
    expect(await named("http://10.1.2.3:8545/")).toBe("infrastructure");
    expect(await named("http://10.9.9.9:8545/")).toBeUndefined();
    expect(await named("http://somewhere.example:8545/")).toBeUndefined();
    expect(asked).toEqual(["anvil.internal"]);
  });

  it("matches nothing by an infrastructure name whose lookup does not answer in time", async () => {
    const never: OutboundLookup = () => new Promise(() => undefined);
    const named = createOutboundUrlJudge({ allowlist: ["10.0.0.0/8"], infrastructure: ["http://anvil.internal:8545"], lookup: never, lookupTimeoutMs: 5 });
    expect(await named("http://10.1.2.3:8545/")).toBeUndefined();
  });
});

describe("knownAddresses", () => {
  it("knows literals and localhost names, and nothing else", () => {
    expect(knownAddresses("[::1]")).toEqual(["::1"]);
    expect(knownAddresses("10.0.0.1")).toEqual(["10.0.0.1"]);
    expect(knownAddresses("LOCALHOST.")).toEqual(["127.0.0.1"]);
    expect(knownAddresses("api.localhost")).toEqual(["127.0.0.1"]);
    expect(knownAddresses("notlocalhost.example")).toEqual([]);
  });
});
