/**
 * The x402 `batch-settlement` scheme (payment channels) in the local world, paid by the official
 * packages, against the devnet's own contracts (devnet/contracts).
 *
 * 1. The chain: our x402BatchSettlement and ERC3009DepositCollector at the addresses @x402/evm
 *    names, and every digest the scheme signs (channel id, voucher, refund, claim batch) as our
 *    contract computes it equal to @x402/evm's (its functions, types and signatures).
 * 2. The official client (`@x402/fetch` + `@x402/evm`'s batch-settlement client) pays a channel
 *    service 20 times: one deposit transaction, then no transaction at all while it pays with
 *    vouchers; a claim round moves exactly the sum of the prices to the payee; a cooperative
 *    refund returns the rest to the payer.
 * 3. The hostile services: one tries to claim a payer's whole deposit, and the facilitator
 *    refuses (its simulation on our contract reverts), and so does the contract when the claim
 *    is mined; a voucher above the deposit is refused. The other takes the deposit and refuses
 *    the vouchers; the payer's own withdrawal waits the channel's delay, then pays the rest back.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { Network, PaymentRequirements } from "@x402/core/types";
import {
  BATCH_SETTLEMENT_ADDRESS,
  BATCH_SETTLEMENT_DOMAIN,
  claimBatchTypes,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  refundTypes,
  toClientEvmSigner,
  voucherTypes,
  type ChannelConfig,
} from "@x402/evm";
import { BatchSettlementEvmScheme, computeChannelId, InMemoryClientChannelStorage, signVoucher } from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  hashDomain,
  hashTypedData,
  http,
  keccak256,
  parseEventLogs,
  recoverAddress,
  toHex,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "../../devnet";
import { loadContractArtifact } from "../../devnet/contracts/contract-artifacts";

type Service = Devnet["services"][number];

const EIP712_DOMAIN_FIELDS = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;

let devnet: Devnet;
let chain: ReturnType<typeof createPublicClient>;
const { abi } = loadContractArtifact("batchSettlement");
const contract = getAddress(BATCH_SETTLEMENT_ADDRESS);

beforeAll(async () => {
  // No heartbeat and no timed claim rounds: every block is a transaction the test caused.
  devnet = await startDevnet({ heartbeatSeconds: 0, channelClaimIntervalSeconds: 0, settleTimeoutMs: 10_000 });
  chain = createPublicClient({ transport: http(devnet.rpcUrl), pollingInterval: 50, cacheTime: 0 });
});

afterAll(async () => {
  await devnet?.stop();
});

const named = (name: string): Service => {
  const found = devnet.services.find((service) => service.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found;
};
const exampleUrl = (service: Service) => service.example?.url ?? service.url;
const payeeOf = (service: Service) => getAddress(service.payTo ?? devnet.accounts.merchant.address);
const usdcBalance = (address: Address) => chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "balanceOf", args: [address] });
const channelState = async (channelId: Hex) =>
  (await chain.readContract({ address: contract, abi, functionName: "channels", args: [channelId] })) as readonly [bigint, bigint];
const localChain = () => ({
  id: devnet.chainId,
  name: "devnet",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [devnet.rpcUrl] } },
});

/** The official batch-settlement client for a funded wallet: its scheme (to refund, to name its channel) and a paying fetch. */
function officialChannelClient(privateKey: Hex, underlying: typeof fetch = fetch) {
  const account = privateKeyToAccount(privateKey);
  const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(account, chain), { storage: new InMemoryClientChannelStorage() });
  const client = new x402Client()
    .register(devnet.network as Network, scheme)
    .setSpendControls({ allowedAssets: [{ network: devnet.network as Network, asset: devnet.usdc }] });
  return { account, scheme, pay: wrapFetchWithPayment(underlying, client) };
}

/** The channel a client opens with a service: the service's own terms plus the client's payer and salt. */
async function channelOf(
  scheme: BatchSettlementEvmScheme,
  service: Service,
): Promise<{ config: ChannelConfig; requirements: PaymentRequirements; channelId: Hex }> {
  const response = await fetch(exampleUrl(service));
  await response.body?.cancel();
  const [requirements] = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "").accepts;
  if (!requirements) throw new Error(`${service.name} offers nothing`);
  const config = scheme.buildChannelConfig(requirements);
  return { config, requirements, channelId: computeChannelId(config, devnet.chainId) };
}

describe("the batch-settlement contracts on the local chain", () => {
  it("are ours, at the addresses @x402/evm uses, and listed in the coordinates", async () => {
    expect(await chain.getCode({ address: contract })).toBe(loadContractArtifact("batchSettlement").runtimeBytecode);
    expect(await chain.getCode({ address: ERC3009_DEPOSIT_COLLECTOR_ADDRESS })).toBe(loadContractArtifact("erc3009DepositCollector").runtimeBytecode);
    expect([devnet.batchSettlement, devnet.erc3009DepositCollector]).toEqual([contract, getAddress(ERC3009_DEPOSIT_COLLECTOR_ADDRESS)]);
    const supported = await new HTTPFacilitatorClient({ url: devnet.facilitatorUrl }).getSupported();
    // No receiverAuthorizer advertised: the facilitator cannot authenticate refunds, so the services sign their own.
    expect(supported.kinds).toContainEqual({ x402Version: 2, scheme: "batch-settlement", network: devnet.network });
  });

  it("computes every digest the scheme signs exactly as @x402/evm does: channel id, voucher, refund, claim batch", async () => {
    const payer = privateKeyToAccount(devnet.accounts.user.privateKey as Hex);
    const domain = { ...BATCH_SETTLEMENT_DOMAIN, chainId: devnet.chainId, verifyingContract: contract };
    const configs: ChannelConfig[] = [0, 1, 2].map((index) => ({
      payer: payer.address,
      payerAuthorizer: index === 1 ? payer.address : "0x0000000000000000000000000000000000000000",
      receiver: getAddress(devnet.accounts.merchant.address),
      receiverAuthorizer: getAddress(devnet.accounts.merchant.address),
      token: getAddress(devnet.usdc),
      withdrawDelay: [900, 86_400, 2_592_000][index] ?? 900,
      salt: keccak256(toHex(`salt ${index}`)),
    }));
    const claimRows = [];
    for (const [index, config] of configs.entries()) {
      const channelId = computeChannelId(config, devnet.chainId);
      expect(await chain.readContract({ address: contract, abi, functionName: "getChannelId", args: [config] }), `channel id ${index}`).toBe(channelId);

      // The voucher: the package's client signature recovers to the payer from our digest.
      const amount = 1_000n * BigInt(index + 1) + 7n;
      const voucher = await signVoucher(toClientEvmSigner(payer, chain), channelId, amount.toString(), devnet.network);
      const voucherDigest = (await chain.readContract({ address: contract, abi, functionName: "getVoucherDigest", args: [channelId, amount] })) as Hex;
      expect(voucherDigest).toBe(hashTypedData({ domain, types: voucherTypes, primaryType: "Voucher", message: { channelId, maxClaimableAmount: amount } }));
      expect(await recoverAddress({ hash: voucherDigest, signature: voucher.signature })).toBe(payer.address);

      const refundDigest = await chain.readContract({ address: contract, abi, functionName: "getRefundDigest", args: [channelId, BigInt(index), amount] });
      expect(refundDigest).toBe(hashTypedData({ domain, types: refundTypes, primaryType: "Refund", message: { channelId, nonce: BigInt(index), amount } }));
      claimRows.push({ channelId, row: { voucher: { channel: config, maxClaimableAmount: amount }, signature: voucher.signature, totalClaimed: amount - 7n } });
    }
    const claimDigest = await chain.readContract({ address: contract, abi, functionName: "getClaimBatchDigest", args: [claimRows.map(({ row }) => row)] });
    const entries = claimRows.map(({ channelId, row }) => ({ channelId, maxClaimableAmount: row.voucher.maxClaimableAmount, totalClaimed: row.totalClaimed }));
    expect(claimDigest).toBe(hashTypedData({ domain, types: claimBatchTypes, primaryType: "ClaimBatch", message: { claims: entries } }));
    expect(await chain.readContract({ address: contract, abi, functionName: "domainSeparator" })).toBe(
      hashDomain({ domain: { ...domain, chainId: BigInt(devnet.chainId) }, types: { EIP712Domain: EIP712_DOMAIN_FIELDS } }),
    );
  });
});

describe("a channel service paid by the official client", () => {
  it(
    "20 calls: one deposit transaction, none during the vouchers; the claim round pays exactly 20 prices; the refund returns the rest",
    { timeout: 60_000 },
    async () => {
      const service = named("tick-feed");
      expect(service).toMatchObject({
        scheme: "batch-settlement",
        price: "0.001",
        amount: "1000",
        channel: { minDeposit: "50000", withdrawDelaySeconds: 900, behaviour: "honest" },
      });
      // How long each request the client sends takes, by whether it carries a payment (the client asks unpaid first, gets the 402, then pays).
      const requestTimes = { unpaid: [] as number[], paid: [] as number[] };
      const timedFetch: typeof fetch = async (input, init) => {
        const startedAt = performance.now();
        const response = await fetch(input, init);
        const paid = new Request(input, init).headers.has("payment-signature");
        requestTimes[paid ? "paid" : "unpaid"].push(performance.now() - startedAt);
        return response;
      };
      const { account, scheme, pay } = officialChannelClient(devnet.accounts.user.privateKey as Hex, timedFetch);
      const payee = payeeOf(service);
      const before = { payer: await usdcBalance(account.address), payee: await usdcBalance(payee) };
      const { channelId } = await channelOf(scheme, service);

      const first = await pay(exampleUrl(service));
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ demo: true, symbol: "BTC" });
      const deposit = decodePaymentResponseHeader(first.headers.get("payment-response") ?? "");
      expect(deposit).toMatchObject({ success: true, amount: "50000", payer: account.address });
      const depositReceipt = await chain.getTransactionReceipt({ hash: deposit.transaction as Hex });
      expect(depositReceipt.status).toBe("success");
      expect(await channelState(channelId)).toEqual([50_000n, 0n]);
      const afterDeposit = await chain.getBlockNumber();

      const timings: number[] = [];
      for (let call = 2; call <= 20; call++) {
        const startedAt = performance.now();
        const response = await pay(exampleUrl(service));
        timings.push(performance.now() - startedAt);
        expect(response.status, `call ${call}`).toBe(200);
        await response.body?.cancel();
        const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
        // A voucher: checked by the service alone, nothing sent to the chain.
        expect(settlement, `call ${call}`).toMatchObject({
          success: true,
          transaction: "",
          extra: { chargedAmount: "1000", channelState: { chargedCumulativeAmount: String(call * 1000) } },
        });
      }
      expect(await chain.getBlockNumber(), "no transaction while paying with vouchers").toBe(afterDeposit);
      expect(await usdcBalance(payee)).toBe(before.payee);
      const median = (values: number[]) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]?.toFixed(1);
      const voucherRequests = requestTimes.paid.slice(1);
      console.log(
        `batch-settlement: 19 voucher calls through the official client: median ${median(timings)} ms a call (slowest ${Math.max(...timings).toFixed(1)} ms), of which the paid request ${median(voucherRequests)} ms and the unpaid one that fetches the 402 ${median(requestTimes.unpaid.slice(1))} ms (loopback, no chain)`,
      );

      // The claim round: one claim transaction for the vouchers, one settlement moving exactly 20 prices to the payee.
      const rounds = await devnet.channels.flush();
      const round = rounds.find((entry) => entry.service === "tick-feed");
      expect(round).toMatchObject({ claims: [{ vouchers: 1 }], settle: { transaction: expect.stringMatching(/^0x/) } });
      expect(await chain.getBlockNumber()).toBe(afterDeposit + 2n);
      const settleReceipt = await chain.getTransactionReceipt({ hash: round?.settle?.transaction as Hex });
      const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: settleReceipt.logs });
      expect(transfers.map((log) => [log.args.from, log.args.to, log.args.value])).toEqual([[contract, payee, 20_000n]]);
      expect(await usdcBalance(payee)).toBe(before.payee + 20_000n);
      expect(await channelState(channelId)).toEqual([50_000n, 20_000n]);

      // The cooperative refund, asked by the client: the unspent 30 000 go back to the payer.
      const refund = await scheme.refund(exampleUrl(service));
      expect(refund).toMatchObject({ success: true, amount: "30000" });
      expect(await channelState(channelId)).toEqual([20_000n, 20_000n]);
      expect(await usdcBalance(account.address)).toBe(before.payer - 20_000n);
      expect(await usdcBalance(payee)).toBe(before.payee + 20_000n);
    },
  );
});

describe("the other honest channel service", () => {
  it("word-lookup: three calls, one deposit, one claim round paying three prices", { timeout: 60_000 }, async () => {
    const service = named("word-lookup");
    expect(service).toMatchObject({ scheme: "batch-settlement", price: "0.0005", amount: "500", channel: { minDeposit: "20000", behaviour: "honest" } });
    const { scheme, pay } = officialChannelClient(devnet.accounts.user.privateKey as Hex);
    // Its own payee, so its own channel with the same payer: tick-feed's state is not its business.
    const payee = payeeOf(service);
    expect(payee).not.toBe(payeeOf(named("tick-feed")));
    expect((await channelOf(scheme, service)).channelId).not.toBe((await channelOf(scheme, named("tick-feed"))).channelId);
    const payeeBefore = await usdcBalance(payee);
    const transactions: string[] = [];
    for (let call = 1; call <= 3; call++) {
      const response = await pay(exampleUrl(service));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ demo: true, word: "ephemeral" });
      transactions.push(decodePaymentResponseHeader(response.headers.get("payment-response") ?? "").transaction);
    }
    expect(transactions.map((transaction) => transaction !== "")).toEqual([true, false, false]);
    const round = (await devnet.channels.flush()).find((entry) => entry.service === "word-lookup");
    expect(round).toMatchObject({ claims: [{ vouchers: 1 }], settle: { transaction: expect.stringMatching(/^0x/) } });
    expect(await usdcBalance(payee)).toBe(payeeBefore + 1_500n);
  });
});

describe("what no channel service can do", () => {
  it(
    "claim more than the highest voucher: the facilitator refuses it, the contract reverts it on chain; a voucher above the deposit is refused",
    { timeout: 60_000 },
    async () => {
      const service = named("greedy-ticks");
      expect(service.channel?.behaviour).toBe("over-claims");
      const { account, scheme, pay } = officialChannelClient(devnet.accounts.agent.privateKey as Hex);
      const payee = payeeOf(service);
      // The receiver authorizer (the merchant's key) may send a claim itself.
      const authorizer = getAddress(devnet.accounts.merchant.address);
      const { channelId, config, requirements } = await channelOf(scheme, service);
      for (let call = 1; call <= 3; call++) {
        const response = await pay(exampleUrl(service));
        expect(response.status).toBe(200);
        await response.body?.cancel();
      }
      expect(await channelState(channelId)).toEqual([40_000n, 0n]);
      const payeeBefore = await usdcBalance(payee);

      const round = (await devnet.channels.flush()).find((entry) => entry.service === "greedy-ticks");
      expect(round?.overClaims).toEqual([
        {
          channelId,
          highestVoucher: "2400",
          attempted: "40000",
          facilitator: { success: false, errorReason: "invalid_batch_settlement_evm_claim_simulation_failed" },
          transaction: expect.stringMatching(/^0x/),
          status: "reverted",
        },
      ]);
      expect(await channelState(channelId)).toEqual([40_000n, 0n]);
      expect(await usdcBalance(payee)).toBe(payeeBefore);

      // Why, by the contract's own errors: past the voucher, past the deposit, or a voucher the payer never signed.
      const voucher = await signVoucher(toClientEvmSigner(account, chain), channelId, "2400", devnet.network);
      const claimAs = (maxClaimableAmount: bigint, totalClaimed: bigint, signature: Hex = voucher.signature) =>
        chain.simulateContract({
          account: authorizer,
          address: contract,
          abi,
          functionName: "claim",
          args: [[{ voucher: { channel: config, maxClaimableAmount }, signature, totalClaimed }]],
        });
      expect(await revertName(claimAs(2_400n, 2_401n))).toBe("ClaimExceedsVoucher");
      expect(await revertName(claimAs(4_000n, 4_000n))).toBe("InvalidVoucherSignature");
      const overDeposit = await signVoucher(toClientEvmSigner(account, chain), channelId, "60000", devnet.network);
      expect(await revertName(claimAs(60_000n, 60_000n, overDeposit.signature))).toBe("ClaimExceedsBalance");
      // The most it can claim: exactly the highest voucher.
      expect(await revertName(claimAs(2_400n, 2_400n))).toBe("no revert");

      // The facilitator refuses a voucher above the channel's deposit before any service could accept it.
      const verified = await fetch(new URL("/verify", devnet.facilitatorUrl), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          x402Version: 2,
          paymentPayload: { x402Version: 2, accepted: requirements, payload: { type: "voucher", channelConfig: config, voucher: overDeposit } },
          paymentRequirements: requirements,
        }),
      });
      expect(await verified.json()).toMatchObject({ isValid: false, invalidReason: "invalid_batch_settlement_evm_cumulative_exceeds_balance" });
    },
  );

  it(
    "keep a payer's deposit: the trap takes it and refuses the vouchers; the payer withdraws alone, after the channel's delay and not a second sooner",
    { timeout: 60_000 },
    async () => {
      const service = named("deposit-trap");
      expect(service.channel).toMatchObject({ minDeposit: "30000", behaviour: "refuses-vouchers" });
      const { account, scheme, pay } = officialChannelClient(devnet.accounts.agent.privateKey as Hex);
      const { channelId, config } = await channelOf(scheme, service);
      const first = await pay(exampleUrl(service));
      expect(first.status).toBe(200);
      await first.body?.cancel();
      const second = await pay(exampleUrl(service));
      expect(second.status).toBe(402);
      expect(await second.json()).toMatchObject({ error: "voucher_refused" });
      // It claims what it served (the deposit's first call), and holds the rest of the deposit hostage.
      const round = (await devnet.channels.flush()).find((entry) => entry.service === "deposit-trap");
      expect(round).toMatchObject({ claims: [{ vouchers: 1 }] });
      const [balance, claimed] = await channelState(channelId);
      expect([balance, claimed]).toEqual([30_000n, 900n]);
      const payerBefore = await usdcBalance(account.address);
      const wallet = createWalletClient({ account, chain: localChain(), transport: http(devnet.rpcUrl) });
      const testClient = createTestClient({ mode: "anvil", chain: localChain(), transport: http(devnet.rpcUrl) });
      const mined = async (hash: Hex) => (await chain.waitForTransactionReceipt({ hash })).status;

      expect(
        await revertName(
          chain.simulateContract({
            account: getAddress(devnet.accounts.merchant.address),
            address: contract,
            abi,
            functionName: "initiateWithdraw",
            args: [config, 1n],
          }),
        ),
      ).toBe("Unauthorized");
      expect(
        await revertName(chain.simulateContract({ account, address: contract, abi, functionName: "initiateWithdraw", args: [config, balance - claimed + 1n] })),
      ).toBe("WithdrawalExceedsAvailable");
      expect(await mined(await wallet.writeContract({ address: contract, abi, functionName: "initiateWithdraw", args: [config, balance - claimed] }))).toBe(
        "success",
      );
      const [, initiatedAt] = (await chain.readContract({ address: contract, abi, functionName: "pendingWithdrawals", args: [channelId] })) as readonly [
        bigint,
        number,
      ];
      const finalize = () => chain.simulateContract({ account, address: contract, abi, functionName: "finalizeWithdraw", args: [config] });
      expect(await revertName(finalize())).toBe("WithdrawDelayNotElapsed");

      // One second before the delay ends: still refused. At the delay: paid.
      await testClient.setNextBlockTimestamp({ timestamp: BigInt(initiatedAt) + 899n });
      await testClient.mine({ blocks: 1 });
      expect(await revertName(finalize())).toBe("WithdrawDelayNotElapsed");
      await testClient.setNextBlockTimestamp({ timestamp: BigInt(initiatedAt) + 900n });
      expect(await mined(await wallet.writeContract({ address: contract, abi, functionName: "finalizeWithdraw", args: [config] }))).toBe("success");
      expect(await usdcBalance(account.address)).toBe(payerBefore + balance - claimed);
      expect(await channelState(channelId)).toEqual([900n, 900n]);
    },
  );
});

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
