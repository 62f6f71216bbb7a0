import { readFileSync } from "node:fs";
import { uptoPermit2WitnessTypes, x402UptoPermit2ProxyABI } from "@x402/evm";
import { describe, expect, it } from "vitest";
import { compileUptoProxy } from "./compile-upto-proxy";
import { loadUptoProxyArtifact, UptoProxyArtifact, uptoProxyArtifactPath } from "./upto-proxy-artifact";

/** An ABI with keys and entries in a fixed order, so two ABIs compare by content. */
function canonical(abi: readonly unknown[]): unknown[] {
  const sortKeys = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sortKeys)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([left], [right]) => left.localeCompare(right))
              .map(([key, inner]) => [key, sortKeys(inner)]),
          )
        : value;
  const label = (entry: unknown) => `${(entry as { type: string }).type}:${(entry as { name?: string }).name ?? ""}`;
  return [...abi].sort((left, right) => label(left).localeCompare(label(right))).map(sortKeys);
}

const typeString = (name: keyof typeof uptoPermit2WitnessTypes) =>
  `${name}(${uptoPermit2WitnessTypes[name].map((field) => `${field.type} ${field.name}`).join(",")})`;

describe("the devnet's x402UptoPermit2Proxy", () => {
  it("has the committed artifact of its source: a fresh compile gives the same bytes (else run `npm run devnet:contracts`)", { timeout: 60_000 }, () => {
    const committed = UptoProxyArtifact.parse(JSON.parse(readFileSync(uptoProxyArtifactPath(), "utf8")));
    expect(compileUptoProxy()).toEqual(committed);
  });

  it("has exactly the ABI @x402/evm's upto facilitator calls: every function, event and error, by name and type", () => {
    expect(canonical(loadUptoProxyArtifact().abi)).toEqual(canonical(x402UptoPermit2ProxyABI));
  });

  it("signs over the witness type @x402/evm's upto client signs", () => {
    const source = readFileSync(new URL("./x402UptoPermit2Proxy.sol", import.meta.url), "utf8");
    // Permit2 appends this to its `PermitWitnessTransferFrom(...,` stub; the referenced types come in alphabetical order.
    const witnessTypeString = `Witness witness)${typeString("TokenPermissions")}${typeString("Witness")}`;
    expect(uptoPermit2WitnessTypes.PermitWitnessTransferFrom.at(-1)).toEqual({ name: "witness", type: "Witness" });
    expect(source).toContain(`"${witnessTypeString}"`);
    expect(source).toContain(`keccak256("${typeString("Witness")}")`);
  });
});
