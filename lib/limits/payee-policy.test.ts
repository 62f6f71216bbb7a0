import { describe, expect, it } from "vitest";
import { checkPayeePolicy, OPEN_POLICY, PayeePolicySettings, payeePolicyOf } from "./payee-policy";

const A = "0x52908400098527886E0F7030069857D2E4169EE7";
const B = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const terms = { payTo: A, asset: USDC, network: "eip155:84532" };

describe("checkPayeePolicy", () => {
  it("lets everything through with no lists", () => {
    expect(checkPayeePolicy(OPEN_POLICY, terms)).toEqual({ ok: true });
  });

  it("refuses a denied payee, asset or network, whatever its letter case, naming it", () => {
    const deniedPayee = payeePolicyOf(PayeePolicySettings.parse({ PAYEES_DENIED: ` ${A.toLowerCase()} , ${B}` }));
    expect(checkPayeePolicy(deniedPayee, terms)).toEqual({ ok: false, message: `the operator's policy does not allow paying the payee ${A}` });
    expect(checkPayeePolicy(payeePolicyOf(PayeePolicySettings.parse({ ASSETS_DENIED: USDC.toUpperCase().replace("0X", "0x") })), terms).ok).toBe(false);
    expect(checkPayeePolicy(payeePolicyOf(PayeePolicySettings.parse({ NETWORKS_DENIED: "eip155:84532" })), terms)).toEqual({
      ok: false,
      message: "the operator's policy does not allow paying on the network eip155:84532",
    });
  });

  it("lets in only what an allow list names, and a deny list wins over it", () => {
    const allowB = payeePolicyOf(PayeePolicySettings.parse({ PAYEES_ALLOWED: B }));
    expect(checkPayeePolicy(allowB, terms).ok).toBe(false);
    expect(checkPayeePolicy(allowB, { ...terms, payTo: B }).ok).toBe(true);
    const both = payeePolicyOf(PayeePolicySettings.parse({ PAYEES_ALLOWED: `${A},${B}`, PAYEES_DENIED: A }));
    expect(checkPayeePolicy(both, terms).ok).toBe(false);
    // An empty allow list is no list.
    expect(checkPayeePolicy(payeePolicyOf(PayeePolicySettings.parse({ PAYEES_ALLOWED: " " })), terms).ok).toBe(true);
  });

  it("refuses malformed lists at the edge", () => {
    expect(PayeePolicySettings.safeParse({ PAYEES_DENIED: "0x1234" }).success).toBe(false);
    expect(PayeePolicySettings.safeParse({ NETWORKS_ALLOWED: "eip155:8453; DROP" }).success).toBe(false);
  });
});
