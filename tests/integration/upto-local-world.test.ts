/**
 * The x402 `upto` scheme in the local world, paid by the official packages.
 *
 * 1. The chain: Permit2's code at its canonical address with this chain's EIP-712 domain, the
 *    devnet's x402UptoPermit2Proxy at the address @x402/evm names, the demo wallets' Permit2
 *    approvals, and `/supported` listing `upto` with the facilitator's address.
 * 2. The official client (`@x402/fetch` + `@x402/evm`'s upto client scheme) pays each honest
 *    metered service: the USDC Transfer log shows the amount the call used, below the ceiling,
 *    and the answer's `metering`, the `PAYMENT-RESPONSE` amount and the chain agree.
 * 3. The hostile metered service takes more than it reports (its whole ceiling), but never more
 *    than the ceiling the payer signed.
 * 4. Above the ceiling nothing moves: the facilitator refuses to settle it, the proxy reverts
 *    `AmountExceedsPermitted` (simulated and as a mined transaction), Permit2 refuses a permit
 *    whose amount was raised after signing, and only the facilitator named in the signature may
 *    settle. The same signed payment then settles once, for less, and never again.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { Network, PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress, PERMIT2_ADDRESS, type UptoPermit2Payload } from "@x402/evm";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  hashDomain,
  http,
  maxUint256,
  parseAbi,
  parseEventLogs,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANVIL_MNEMONIC, devAccounts, startDevnet, type Devnet } from "../../devnet";
import { permit2RuntimeCode } from "../../devnet/chain/install-permit2";
import { paymentRequiredProblems, paymentResponseProblems } from "../../devnet/conformance/x402-conformance";
import { loadContractArtifact } from "../../devnet/contracts/contract-artifacts";

type Service = Devnet["services"][number];
type Metering = { unit: string; unitsUsed: number; unitPrice: string; maxUnits: number; ceiling: string; charged: string };

/** Permit2's errors, to name its reverts (the proxy's are in @x402/evm's ABI). */
const permit2Abi = parseAbi([
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "error InvalidSigner()",
  "error InvalidNonce()",
  "error InvalidAmount(uint256 maxAmount)",
]);

let devnet: Devnet;
let chain: ReturnType<typeof createPublicClient>;
const accounts = devAccounts(ANVIL_MNEMONIC);

beforeAll(async () => {
  devnet = await startDevnet({ settleTimeoutMs: 10_000 });
  chain = createPublicClient({ transport: http(devnet.rpcUrl) });
});

afterAll(async () => {
  await devnet?.stop();
});

const named = (name: string): Service => {
  const found = devnet.services.find((service) => service.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found;
};

function exampleRequest(service: Service): [string, RequestInit] {
  const example = service.example;
  if (!example) throw new Error(`${service.name} has no example`);
  const body = example.body === undefined ? {} : { body: JSON.stringify(example.body), headers: { "content-type": "application/json" } };
  return [example.url, { method: service.method, ...body }];
}

const payer = () => privateKeyToAccount(devnet.accounts.user.privateKey as Hex);
const merchant = () => devnet.accounts.merchant.address as Address;
const usdcBalance = (address: Address) => chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "balanceOf", args: [address] });
const balances = () => Promise.all([usdcBalance(payer().address), usdcBalance(merchant())]);

/** What an integrator writes for `upto`: @x402/evm's upto client for the local network, the local USDC allowed. */
function officialUptoClient(): x402Client {
  const network = devnet.network as Network;
  return new x402Client().register(network, new UptoEvmScheme(payer())).setSpendControls({ allowedAssets: [{ network, asset: devnet.usdc }] });
}

/** The USDC Transfer logs of a transaction, as [from, to, value]. */
async function usdcTransfers(hash: Hex): Promise<[Address, Address, bigint][]> {
  const receipt = await chain.getTransactionReceipt({ hash });
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs })
    .filter((log) => log.address.toLowerCase() === devnet.usdc.toLowerCase())
    .map((log) => [log.args.from, log.args.to, log.args.value]);
}

type Paid = { body: Record<string, unknown> & { metering: Metering }; settled: bigint; transaction: Hex; signedCeiling: bigint; spent: bigint };

/** Pays one metered service with the official client; returns what the answer, the settlement and the chain say. */
async function payMetered(url: string, init: RequestInit): Promise<Paid> {
  const sent: string[] = [];
  const recording = async (input: RequestInfo | URL, requestInit?: RequestInit) => {
    const request = new Request(input, requestInit);
    const header = request.headers.get("payment-signature");
    if (header) sent.push(header);
    return fetch(request);
  };
  const before = await balances();
  const response = await wrapFetchWithPayment(recording, officialUptoClient())(url, init);
  expect(response.status, await response.clone().text()).toBe(200);
  const body = (await response.json()) as Paid["body"];
  const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
  expect(await paymentResponseProblems(settlement, { x402Version: 2, payee: merchant() })).toEqual([]);
  expect(settlement).toMatchObject({ success: true, payer: payer().address });
  expect(sent).toHaveLength(1);
  const signed = decodePaymentSignatureHeader(sent[0] ?? "").payload as unknown as UptoPermit2Payload;
  const after = await balances();
  expect(after[1] - before[1], "the payee got what the payer lost").toBe(before[0] - after[0]);
  return {
    body,
    settled: BigInt(settlement.amount ?? "-1"),
    transaction: settlement.transaction as Hex,
    signedCeiling: BigInt(signed.permit2Authorization.permitted.amount),
    spent: before[0] - after[0],
  };
}

describe("the chain holds what upto needs", () => {
  it("Permit2 at its canonical address with this chain's domain, the upto proxy where @x402/evm expects it, and the demo wallets' approvals", async () => {
    const code = await chain.getCode({ address: PERMIT2_ADDRESS });
    expect(code).toBe(permit2RuntimeCode(devnet.chainId));
    expect(code?.length ?? 0).toBeGreaterThan(10_000);
    const separator = await chain.readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "DOMAIN_SEPARATOR" });
    const domainTypes = {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
    } as const;
    expect(separator).toBe(
      hashDomain({ domain: { name: "Permit2", chainId: BigInt(devnet.chainId), verifyingContract: PERMIT2_ADDRESS }, types: domainTypes }),
    );

    expect(await chain.getCode({ address: x402UptoPermit2ProxyAddress })).toBe(loadContractArtifact("uptoProxy").runtimeBytecode);
    expect(await chain.readContract({ address: x402UptoPermit2ProxyAddress, abi: x402UptoPermit2ProxyABI, functionName: "PERMIT2" })).toBe(PERMIT2_ADDRESS);
    expect(devnet).toMatchObject({ permit2: PERMIT2_ADDRESS, uptoProxy: x402UptoPermit2ProxyAddress });

    for (const owner of [devnet.accounts.agent.address, devnet.accounts.user.address] as Address[]) {
      expect(
        await chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "allowance", args: [owner, PERMIT2_ADDRESS] }),
        owner,
      ).toBeGreaterThan(maxUint256 / 2n);
    }

    const supported = await new HTTPFacilitatorClient({ url: devnet.facilitatorUrl }).getSupported();
    expect(supported.kinds).toEqual(
      expect.arrayContaining([
        { x402Version: 2, scheme: "upto", network: devnet.network, extra: { facilitatorAddress: accounts.facilitator.address } },
        expect.objectContaining({ x402Version: 2, scheme: "exact", network: devnet.network }),
      ]),
    );
  });

  it("each metered service's 402 offers upto for its ceiling with its terms, passes the official schemas, and is listed in discovery", async () => {
    const metered = devnet.services.filter((service) => service.scheme === "upto");
    expect(metered.map((service) => service.name).sort()).toEqual(["overcharging-summary", "row-meter", "text-meter"]);
    for (const service of metered) {
      const response = await fetch(...exampleRequest(service));
      expect(response.status, service.name).toBe(402);
      const required = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
      expect(await paymentRequiredProblems(required), service.name).toEqual([]);
      expect(required.accepts, service.name).toEqual([
        {
          scheme: "upto",
          network: devnet.network,
          amount: service.amount,
          asset: devnet.usdc,
          payTo: merchant(),
          maxTimeoutSeconds: 120,
          extra: {
            name: "USD Coin",
            version: "2",
            assetTransferMethod: "permit2",
            facilitatorAddress: accounts.facilitator.address,
            metering: service.metering,
          },
        },
      ]);
      expect(BigInt(service.metering?.unitPrice ?? "0") * BigInt(service.metering?.maxUnits ?? 0), service.name).toBe(BigInt(service.amount ?? ""));
    }
    type Listing = { resource: string; extensions: { bazaar: { info: { input: Record<string, unknown>; output: { example: Record<string, unknown> } } } } };
    const listed = (await (await fetch(new URL("/discovery/resources?scheme=upto&limit=100", devnet.facilitatorUrl))).json()) as { items: Listing[] };
    expect(listed.items.map((item) => item.resource).sort()).toEqual(metered.map((service) => service.url).sort());
    // Each listing says how to call it (its inputs, where they go) and shows the usage report an answer carries.
    const inputs = {
      "text-meter": { method: "POST", body: ["text"] },
      "row-meter": { method: "GET", queryParams: ["rows", "dataset"] },
      "overcharging-summary": { method: "GET", queryParams: ["text"] },
    };
    for (const service of metered) {
      const { info } = listed.items.find((item) => item.resource === service.url)?.extensions.bazaar ?? { info: undefined };
      const [where, names] = Object.entries(inputs[service.name as keyof typeof inputs]).find(([key]) => key !== "method") as [string, string[]];
      expect(info?.input, service.name).toMatchObject({ method: inputs[service.name as keyof typeof inputs].method });
      expect(Object.keys((info?.input[where] ?? {}) as object).sort(), service.name).toEqual([...names].sort());
      expect(info?.output.example.metering, service.name).toMatchObject({
        unit: service.metering?.unit,
        unitPrice: service.metering?.unitPrice,
        ceiling: service.amount,
      });
    }
  });
});

describe("the official client pays metered services what they used", () => {
  it("text-meter: the started 100-character units of the text, below the ceiling, on chain", async () => {
    const service = named("text-meter");
    const text = String(service.example?.body?.text ?? "");
    const units = Math.ceil([...text.trim()].length / 100);
    expect(units).toBeGreaterThan(1);
    const paid = await payMetered(...exampleRequest(service));
    expect(paid.body.metering).toEqual({
      unit: "100 characters",
      unitsUsed: units,
      unitPrice: "1000",
      maxUnits: 60,
      ceiling: "60000",
      charged: String(units * 1000),
    });
    expect(paid.body).toMatchObject({ demo: true, characters: [...text.trim()].length });
    expect(paid.settled).toBe(BigInt(units * 1000));
    expect(paid.signedCeiling).toBe(60_000n);
    expect(paid.settled).toBeLessThan(paid.signedCeiling);
    expect(await usdcTransfers(paid.transaction)).toEqual([[payer().address, merchant(), BigInt(units * 1000)]]);
    expect(paid.spent).toBe(BigInt(units * 1000));
  });

  it("row-meter: per row asked for, for two different counts", async () => {
    const service = named("row-meter");
    for (const rows of [3, 40]) {
      const url = new URL(service.url);
      url.searchParams.set("rows", String(rows));
      url.searchParams.set("dataset", "stations");
      const paid = await payMetered(url.toString(), { method: "GET" });
      expect(paid.body).toMatchObject({ dataset: "stations", rows });
      expect((paid.body.data as unknown[]).length).toBe(rows);
      expect(paid.body.metering).toMatchObject({
        unit: "row",
        unitsUsed: rows,
        unitPrice: "500",
        maxUnits: 200,
        ceiling: "100000",
        charged: String(rows * 500),
      });
      expect(paid.settled).toBe(BigInt(rows * 500));
      expect(await usdcTransfers(paid.transaction)).toEqual([[payer().address, merchant(), BigInt(rows * 500)]]);
      expect(paid.spent).toBeLessThan(paid.signedCeiling);
    }
  });

  it("an input that could cost more than the ceiling is refused before any payment", async () => {
    const before = await balances();
    const rows = new URL(named("row-meter").url);
    rows.searchParams.set("rows", "201");
    const tooMany = await wrapFetchWithPayment(fetch, officialUptoClient())(rows.toString());
    expect(tooMany.status).toBe(400);
    const [textUrl] = exampleRequest(named("text-meter"));
    const tooLong = await wrapFetchWithPayment(fetch, officialUptoClient())(textUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "a".repeat(6_001) }),
    });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).toMatch(/61 units of 100 characters, more than the 60/);
    expect(await balances()).toEqual(before);
  });
});

describe("a hostile metered service", () => {
  it("reports one unit but settles its whole ceiling: more than it used, never more than the payer signed", async () => {
    const service = named("overcharging-summary");
    const paid = await payMetered(...exampleRequest(service));
    expect(paid.body.metering).toMatchObject({ unitsUsed: 1, charged: "1000", ceiling: "16000" });
    expect(paid.settled).toBe(16_000n);
    expect(paid.settled).toBeGreaterThan(BigInt(paid.body.metering.charged));
    expect(paid.signedCeiling).toBe(16_000n);
    const transfers = await usdcTransfers(paid.transaction);
    expect(transfers).toEqual([[payer().address, merchant(), 16_000n]]);
    expect(transfers[0]?.[2]).toBeLessThanOrEqual(paid.signedCeiling);
    expect(paid.spent).toBe(paid.signedCeiling);
  });
});

describe("above the signed ceiling nothing moves", () => {
  it("the facilitator refuses, the proxy and Permit2 revert, only the named facilitator may settle; then it settles once, for less", async () => {
    const service = named("text-meter");
    const unpaid = await fetch(...exampleRequest(service));
    const required = decodePaymentRequiredHeader(unpaid.headers.get("payment-required") ?? "") as PaymentRequired;
    const payment: PaymentPayload = await officialUptoClient().createPaymentPayload(required);
    const requirements = required.accepts[0] as PaymentRequirements;
    const signed = payment.payload as unknown as UptoPermit2Payload;
    const authorization = signed.permit2Authorization;
    const ceiling = BigInt(authorization.permitted.amount);
    expect(ceiling).toBe(60_000n);
    const facilitator = new HTTPFacilitatorClient({ url: devnet.facilitatorUrl });
    expect(await facilitator.verify(payment, requirements)).toMatchObject({ isValid: true, payer: payer().address });
    const before = await balances();

    // 1. The facilitator, asked to settle one unit more than the ceiling: refused, nothing broadcast.
    const overSettle = await postSettle(payment, { ...requirements, amount: String(ceiling + 1n) });
    expect(overSettle).toMatchObject({ success: false, errorReason: "invalid_upto_evm_payload_settlement_exceeds_amount", transaction: "" });

    // 2. The proxy itself, called by the named facilitator with the same request.
    const permit = {
      permitted: { token: getAddress(authorization.permitted.token), amount: ceiling },
      nonce: BigInt(authorization.nonce),
      deadline: BigInt(authorization.deadline),
    };
    const witness = {
      to: getAddress(authorization.witness.to),
      facilitator: getAddress(authorization.witness.facilitator),
      validAfter: BigInt(authorization.witness.validAfter),
    };
    const settleCall = (amount: bigint, from: Address, permitted = permit) =>
      chain.simulateContract({
        account: from,
        address: x402UptoPermit2ProxyAddress,
        abi: [...x402UptoPermit2ProxyABI, ...permit2Abi],
        functionName: "settle",
        args: [permitted, amount, getAddress(authorization.from), witness, signed.signature as Hex],
      });
    expect(await revertName(settleCall(ceiling + 1n, accounts.facilitator.address))).toBe("AmountExceedsPermitted");
    // A permit whose ceiling was raised after signing: the proxy's check passes, Permit2's signature check does not.
    expect(
      await revertName(settleCall(ceiling + 1n, accounts.facilitator.address, { ...permit, permitted: { ...permit.permitted, amount: ceiling + 1n } })),
    ).toBe("InvalidSigner");
    // Anyone but the facilitator the payer named, even for a fair amount.
    expect(await revertName(settleCall(1_000n, accounts.deployer.address))).toBe("UnauthorizedFacilitator");

    // 3. The same over-ceiling settlement mined as a transaction by the facilitator's account: reverted, no transfer.
    const wallet = createWalletClient({
      account: privateKeyToAccount(accounts.facilitator.privateKey),
      transport: http(devnet.rpcUrl),
      chain: {
        id: devnet.chainId,
        name: "devnet",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [devnet.rpcUrl] } },
      },
    });
    const hash = await wallet.writeContract({
      address: x402UptoPermit2ProxyAddress,
      abi: x402UptoPermit2ProxyABI,
      functionName: "settle",
      args: [permit, ceiling + 1n, getAddress(authorization.from), witness, signed.signature as Hex],
      // A fixed gas limit: estimating would refuse to send a transaction that reverts.
      gas: 300_000n,
    });
    const receipt = await chain.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("reverted");
    expect(await usdcTransfers(hash)).toEqual([]);
    expect(await balances()).toEqual(before);

    // 4. Still unused: it settles once, for what was used, and the same signature never settles again.
    const settled = await postSettle(payment, { ...requirements, amount: "1234" });
    expect(settled).toMatchObject({ success: true, amount: "1234", payer: payer().address });
    expect(await usdcTransfers(settled.transaction as Hex)).toEqual([[payer().address, merchant(), 1234n]]);
    const again = await postSettle(payment, { ...requirements, amount: "1234" });
    expect(again.success).toBe(false);
    expect(await revertName(settleCall(1n, accounts.facilitator.address))).toBe("InvalidNonce");
    expect(await balances()).toEqual([before[0] - 1234n, before[1] + 1234n]);
  });
});

/** What the facilitator answers to POST /settle (its own `success: false` included, which the client type would throw on). */
async function postSettle(
  paymentPayload: PaymentPayload,
  paymentRequirements: PaymentRequirements,
): Promise<{ success: boolean; errorReason?: string; transaction: string; amount?: string; payer?: string }> {
  const response = await fetch(new URL("/settle", devnet.facilitatorUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements }),
  });
  return (await response.json()) as { success: boolean; errorReason?: string; transaction: string; amount?: string };
}

/** The custom error a call reverted with, by name (or the message when it was no custom error). */
async function revertName(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof BaseError) {
      const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
      if (reverted instanceof ContractFunctionRevertedError) return reverted.data?.errorName ?? reverted.shortMessage;
      return error.shortMessage;
    }
    return String(error);
  }
  return "no revert";
}
