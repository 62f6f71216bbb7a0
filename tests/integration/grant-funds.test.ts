/**
 * A grant's money on the local chain: the relayer pulls part of a grant to the user's payer key
 * and Permit2 refuses any pull beyond what the user signed, after a `lockdown` from the wallet
 * and after the expiry, with no help from the server's own checks; float goes back to the user
 * without the payer key ever holding gas.
 */
import { createPublicClient, createTestClient, createWalletClient, defineChain, erc20Abi, http, parseAbi, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "../../devnet";
import { preparePermit, type GrantPolicy } from "../../lib/grants/grant-bounds";
import { createGrantChain, type GrantChain } from "../../lib/grants/grant-chain";
import { createGrantFunds, type GrantFunds } from "../../lib/grants/grant-funds";
import { PERMIT2, viemGrantTypedData } from "../../lib/grants/grant-permit";
import { payerKeyOf } from "../../lib/grants/payer-key";

let devnet: Devnet;
let grantChain: GrantChain;
let funds: GrantFunds;
let policy: GrantPolicy;
let relayerKey: Hex;

beforeAll(async () => {
  devnet = await startDevnet({ heartbeatSeconds: 0 });
  relayerKey = devnet.accounts.agent.privateKey as Hex;
  const options = { rpcUrl: devnet.rpcUrl, chainId: devnet.chainId, usdc: devnet.usdc as `0x${string}`, relayerPrivateKey: relayerKey };
  grantChain = createGrantChain(options);
  funds = createGrantFunds({ ...options, usdcName: devnet.usdcName, usdcVersion: devnet.usdcVersion });
  policy = { chainId: devnet.chainId, usdc: devnet.usdc as `0x${string}`, relayer: privateKeyToAccount(relayerKey).address, maxAmount: 10_000_000n };
}, 120_000);

afterAll(async () => {
  await devnet?.stop();
});

const user = () => privateKeyToAccount(devnet.accounts.user.privateKey as Hex);
const reader = () => createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 });

/** Signs and submits a grant of `amount` for the demo user, as POST /api/grants does. */
async function grant(amount: bigint, expiresInSeconds = 3600): Promise<void> {
  const [chainNowSeconds, allowance] = await Promise.all([grantChain.nowSeconds(), grantChain.allowance(user().address)]);
  const permit = preparePermit(policy, { amount, expiresInSeconds, nonce: allowance.nonce, chainNowSeconds });
  const submitted = await grantChain.submitPermit(user().address, permit, await user().signTypedData(viemGrantTypedData(permit)));
  expect(submitted.ok).toBe(true);
}

describe("a grant's money", () => {
  it("derives one payer key per wallet and chain, the same every time", () => {
    const wallet = user().address;
    expect(payerKeyOf(relayerKey, 31337, wallet)).toBe(payerKeyOf(relayerKey, 31337, wallet.toLowerCase() as `0x${string}`));
    expect(payerKeyOf(relayerKey, 31337, wallet)).not.toBe(payerKeyOf(relayerKey, 8453, wallet));
    expect(payerKeyOf(relayerKey, 31337, wallet)).not.toBe(payerKeyOf(relayerKey, 31337, devnet.accounts.unfunded.address as `0x${string}`));
  });

  it("pulls within the grant, refuses beyond it on chain, and sweeps float back without gas on the payer key", { timeout: 60_000 }, async () => {
    const wallet = user().address;
    const payer = privateKeyToAccount(payerKeyOf(relayerKey, devnet.chainId, wallet));
    await grant(3_000n);
    const before = await funds.balanceOf(wallet);

    const pulled = await funds.pull(wallet, payer.address, 1_000n);
    expect(pulled.ok).toBe(true);
    expect(await funds.balanceOf(payer.address)).toBe(1_000n);
    expect(await funds.balanceOf(wallet)).toBe(before - 1_000n);
    expect((await grantChain.allowance(wallet)).amount).toBe(2_000n);

    // More than is left: Permit2 refuses it, whatever the server would have allowed.
    const block = await reader().getBlockNumber();
    expect(await funds.pull(wallet, payer.address, 2_001n)).toMatchObject({ ok: false, reason: "exceeds-allowance" });
    expect(await reader().getBlockNumber()).toBe(block);
    expect(await funds.balanceOf(wallet)).toBe(before - 1_000n);

    // The float goes back; the payer key has no ETH and needs none.
    expect(await reader().getBalance({ address: payer.address })).toBe(0n);
    expect((await funds.sweep(payerKeyOf(relayerKey, devnet.chainId, wallet), wallet, 1_000n)).ok).toBe(true);
    expect(await funds.balanceOf(payer.address)).toBe(0n);
    expect(await funds.balanceOf(wallet)).toBe(before);
  });

  it("after the wallet's lockdown, Permit2 refuses every pull", { timeout: 60_000 }, async () => {
    const wallet = user().address;
    await grant(3_000n);
    const chain = defineChain({
      id: devnet.chainId,
      name: "local",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [devnet.rpcUrl] } },
    });
    const walletClient = createWalletClient({ account: user(), chain, transport: http(devnet.rpcUrl) });
    const lockdownAbi = parseAbi(["struct TokenSpenderPair { address token; address spender; }", "function lockdown(TokenSpenderPair[] approvals)"]);
    const hash = await walletClient.writeContract({
      address: PERMIT2,
      abi: lockdownAbi,
      functionName: "lockdown",
      args: [[{ token: policy.usdc, spender: policy.relayer }]],
    });
    expect((await reader().waitForTransactionReceipt({ hash })).status).toBe("success");
    const before = await funds.balanceOf(wallet);
    expect(await funds.pull(wallet, privateKeyToAccount(payerKeyOf(relayerKey, devnet.chainId, wallet)).address, 1n)).toMatchObject({ ok: false });
    expect(await funds.balanceOf(wallet)).toBe(before);
  });

  it("after the expiry, Permit2 refuses every pull", { timeout: 60_000 }, async () => {
    const wallet = user().address;
    await grant(3_000n, 60);
    const testClient = createTestClient({ mode: "anvil", transport: http(devnet.rpcUrl) });
    await testClient.increaseTime({ seconds: 120 });
    await testClient.mine({ blocks: 1 });
    const before = await reader().readContract({ address: policy.usdc, abi: erc20Abi, functionName: "balanceOf", args: [wallet] });
    expect(await funds.pull(wallet, privateKeyToAccount(payerKeyOf(relayerKey, devnet.chainId, wallet)).address, 1_000n)).toMatchObject({
      ok: false,
      reason: "expired",
    });
    expect(await funds.balanceOf(wallet)).toBe(before);
  });
});
