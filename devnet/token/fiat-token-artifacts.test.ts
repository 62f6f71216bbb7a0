import { describe, expect, it } from "vitest";
import { linkBytecode, loadFiatTokenArtifact } from "./fiat-token-artifacts";

describe("Circle's FiatToken artifacts", () => {
  it("load, with the EIP-3009 functions x402's exact scheme calls", () => {
    const token = loadFiatTokenArtifact("FiatTokenV2_2");
    const functions = token.abi.flatMap((entry) => (entry.type === "function" ? [entry.name] : []));
    expect(functions).toEqual(expect.arrayContaining(["transferWithAuthorization", "authorizationState", "version", "name", "decimals"]));
  });

  it("link the SignatureChecker library at every recorded offset", () => {
    const token = loadFiatTokenArtifact("FiatTokenV2_2");
    expect(token.bytecode).toContain("__$");
    const library = "0x00000000000000000000000000000000000000aa";
    const linked = linkBytecode(token, { SignatureChecker: library });
    expect(linked).not.toContain("__$");
    expect(linked.length).toBe(token.bytecode.length);
    const offsets = Object.values(token.linkReferences).flatMap((byLibrary) => Object.values(byLibrary).flat());
    expect(offsets.length).toBeGreaterThan(0);
    for (const { start } of offsets) expect(linked.slice(2 + start * 2, 2 + start * 2 + 40)).toBe(library.slice(2));
  });

  it("refuse to link without the library", () => {
    expect(() => linkBytecode(loadFiatTokenArtifact("FiatTokenV2_2"), {})).toThrow(/SignatureChecker/);
  });
});
