/**
 * The page's "Local demo wallet" (wagmi's mock connector, which forwards to the local anvil node
 * whose dev accounts are unlocked) can do both steps a metered approval card asks of it: send the
 * one-time ERC-20 `approve` of Permit2 (`writeContract`, then its receipt) and sign the Permit2
 * witness permit (`signTypedData`), with the same wagmi actions the card's hooks call.
 */
import { erc20Abi, maxUint256, recoverTypedDataAddress, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfig, http } from "wagmi";
import { connect, readContract, signTypedData, waitForTransactionReceipt, writeContract } from "wagmi/actions";
import { mock } from "wagmi/connectors";
import { startDevnet, type Devnet } from "../../devnet";
import { chainFor } from "../../lib/client/wallet-config";
import { walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { ApprovalRequest } from "../../lib/stream";
import { buildUptoTypedData, PERMIT2 } from "../../lib/x402/upto-permit2";

let devnet: Devnet;

beforeAll(async () => {
  devnet = await startDevnet();
}, 120_000);

afterAll(async () => {
  await devnet?.stop();
});

describe("the local demo wallet and a metered approval", () => {
  it("sends the Permit2 approve and signs the permit, through wagmi's mock connector", async () => {
    // A dev account that holds no Permit2 approval (the local world approves only the agent and the user).
    const wallet = devnet.accounts.unfunded.address as Address;
    const chain = chainFor({ network: "local", chainId: devnet.chainId, rpcUrl: devnet.rpcUrl, label: "Local" } as Parameters<typeof chainFor>[0]);
    const config = createConfig({ chains: [chain], connectors: [mock({ accounts: [wallet] })], transports: { [chain.id]: http(devnet.rpcUrl) } });
    await connect(config, { connector: config.connectors[0]! });
    const allowance = () => readContract(config, { address: devnet.usdc as Address, abi: erc20Abi, functionName: "allowance", args: [wallet, PERMIT2] });
    expect(await allowance()).toBe(0n);

    const hash = await writeContract(config, {
      address: devnet.usdc as Address,
      abi: erc20Abi,
      functionName: "approve",
      args: [PERMIT2, maxUint256],
      chainId: chain.id,
    });
    expect((await waitForTransactionReceipt(config, { hash, chainId: chain.id })).status).toBe("success");
    expect(await allowance()).toBe(maxUint256);

    const option = {
      x402Version: 2 as const,
      requirements: {},
      amount: 100_000n,
      asset: devnet.usdc as Address,
      payTo: devnet.accounts.merchant.address as Address,
      network: `eip155:${devnet.chainId}`,
      maxTimeoutSeconds: 120,
      domain: { name: "USD Coin", version: "2" },
      upto: { facilitator: devnet.accounts.merchant.address as Address },
    };
    const typedData = buildUptoTypedData(option, devnet.chainId, { validAfter: 0n, deadline: 4_000_000_000n, nonce: `0x${"ab".repeat(32)}` });
    const approval = ApprovalRequest.parse({
      method: "GET",
      resource: "http://x/",
      amount: "0.1",
      asset: option.asset,
      network: option.network,
      payTo: option.payTo,
      expiresAt: 4_000_000_000,
      x402Version: 2,
      scheme: "upto",
      requirements: {},
      typedData,
      payer: wallet,
    });
    const signature = await signTypedData(config, walletTypedDataOf(approval));
    expect(await recoverTypedDataAddress({ ...walletTypedDataOf(approval), signature: signature as Hex })).toBe(wallet);
  });
});
