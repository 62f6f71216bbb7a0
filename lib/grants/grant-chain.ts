import "server-only";
/**
 * What the chain says about grants, and the one transaction a grant needs: the relayer submits
 * the user's signed `PermitSingle` to Permit2 (`permit(owner, permitSingle, signature)`), after
 * which Permit2 lets the relayer pull at most the granted amount until the expiry. Permit2
 * counts what is pulled; this server only ever asks it.
 */
import { BaseError, ContractFunctionRevertedError, createPublicClient, createWalletClient, defineChain, erc20Abi, http, parseAbi, type Hex } from "viem";
import { createNonceManager, jsonRpc } from "viem/nonce";
import { localAccount } from "../crypto/secp256k1";
import { PERMIT2, viemGrantTypedData, type GrantPermit } from "./grant-permit";

export const permit2Abi = parseAbi([
  "struct PermitDetails { address token; uint160 amount; uint48 expiration; uint48 nonce; }",
  "struct PermitSingle { PermitDetails details; address spender; uint256 sigDeadline; }",
  "function permit(address owner, PermitSingle permitSingle, bytes signature)",
  "function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)",
  "function transferFrom(address from, address to, uint160 amount, address token)",
  "error InsufficientAllowance(uint256 amount)",
  "error AllowanceExpired(uint256 deadline)",
  "error InvalidNonce()",
  "error SignatureExpired(uint256 signatureDeadline)",
  "error InvalidSigner()",
  "error InvalidSignature()",
  "error InvalidSignatureLength()",
  "error InvalidContractSignature()",
]);

/** Permit2's allowance of the relayer over the owner's USDC: what is left, until when, and the next nonce. */
export type Permit2Allowance = { amount: bigint; expiration: bigint; nonce: bigint };

export type SubmitOutcome = { ok: true; transaction: Hex } | { ok: false; reason: "used" | "expired" | "bad-signature" | "reverted"; detail: string };

export interface GrantChain {
  /** The latest block's time, unix seconds: Permit2 judges expiries by it, so the server does too. */
  nowSeconds(): Promise<bigint>;
  allowance(owner: `0x${string}`): Promise<Permit2Allowance>;
  /** How much of the owner's USDC Permit2 itself may move (the one-time ERC-20 approval). */
  usdcApprovedToPermit2(owner: `0x${string}`): Promise<bigint>;
  /** Whether `signature` is the owner's over the permit (EOA or ERC-1271 contract wallet). */
  isSignedBy(owner: `0x${string}`, permit: GrantPermit, signature: Hex): Promise<boolean>;
  /** Submits the permit from the relayer and waits for its receipt; a revert is read, never thrown. */
  submitPermit(owner: `0x${string}`, permit: GrantPermit, signature: Hex): Promise<SubmitOutcome>;
}

export type RelayerOptions = { rpcUrl: string; chainId: number; usdc: `0x${string}`; relayerPrivateKey: Hex; timeoutMs?: number };

/**
 * One nonce counter per relayer address in this process, shared by every client built here:
 * permits, pulls and sweeps go out concurrently from one account. Another instance sending
 * with the same account is caught by `withFreshNonce`.
 */
export const relayerNonces = createNonceManager({ source: jsonRpc() });

/**
 * Sends with the relayer, again with a fresh nonce when the chain says the nonce was taken
 * (another instance sent from the same account between our count and our send); at most
 * four tries.
 */
export async function withFreshNonce<T>(relayer: `0x${string}`, chainId: number, send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const taken = /nonce too low|nonce has already been used|already known|replacement transaction underpriced/i.test(String(error));
      if (!taken || attempt >= 4) throw error;
      relayerNonces.reset({ address: relayer, chainId });
    }
  }
}

/** A reader of the chain (no cached block number) and the relayer's writer. */
export function relayerClients(options: RelayerOptions) {
  const chain = defineChain({
    id: options.chainId,
    name: `chain ${options.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const transport = http(options.rpcUrl, { timeout: options.timeoutMs ?? 10_000, retryCount: 1 });
  const relayer = localAccount(options.relayerPrivateKey, { nonceManager: relayerNonces });
  return { reader: createPublicClient({ chain, transport, cacheTime: 0 }), relayer, writer: createWalletClient({ chain, transport, account: relayer }) };
}

export function createGrantChain(options: RelayerOptions): GrantChain {
  const { reader, relayer, writer } = relayerClients(options);
  return {
    nowSeconds: async () => (await reader.getBlock({ blockTag: "latest" })).timestamp,
    async allowance(owner) {
      const [amount, expiration, nonce] = await reader.readContract({
        address: PERMIT2,
        abi: permit2Abi,
        functionName: "allowance",
        args: [owner, options.usdc, relayer.address],
      });
      return { amount, expiration: BigInt(expiration), nonce: BigInt(nonce) };
    },
    usdcApprovedToPermit2: (owner) => reader.readContract({ address: options.usdc, abi: erc20Abi, functionName: "allowance", args: [owner, PERMIT2] }),
    isSignedBy: (owner, permit, signature) => reader.verifyTypedData({ address: owner, signature, ...viemGrantTypedData(permit) }),
    async submitPermit(owner, permit, signature) {
      const args = [
        owner,
        {
          details: { token: permit.token, amount: permit.amount, expiration: Number(permit.expiration), nonce: Number(permit.nonce) },
          spender: permit.spender,
          sigDeadline: permit.sigDeadline,
        },
        signature,
      ] as const;
      try {
        // Simulated first: a permit Permit2 would refuse costs no gas and says why.
        const { request } = await reader.simulateContract({ address: PERMIT2, abi: permit2Abi, functionName: "permit", args, account: relayer });
        const transaction = await withFreshNonce(relayer.address, options.chainId, () => writer.writeContract(request));
        const receipt = await reader.waitForTransactionReceipt({ hash: transaction, timeout: options.timeoutMs ?? 30_000 });
        return receipt.status === "success"
          ? { ok: true, transaction }
          : { ok: false, reason: "reverted", detail: `permit transaction ${transaction} reverted` };
      } catch (error) {
        return refusalOf(error);
      }
    },
  };
}

function refusalOf(error: unknown): SubmitOutcome {
  const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : undefined;
  if (!(reverted instanceof ContractFunctionRevertedError)) throw error;
  const name = reverted.data?.errorName ?? "";
  const detail = `Permit2 refused the permit: ${name || reverted.shortMessage}`;
  if (name === "InvalidNonce") return { ok: false, reason: "used", detail };
  if (name === "SignatureExpired") return { ok: false, reason: "expired", detail };
  if (name.startsWith("InvalidSign") || name === "InvalidContractSignature") return { ok: false, reason: "bad-signature", detail };
  return { ok: false, reason: "reverted", detail };
}
