import { createWalletClient, http, maxUint256, parseAbi, type Address, type Chain, type Hash, type PublicClient, type Transport } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { DevAccount } from "../chain/dev-accounts";
import { linkBytecode, loadFiatTokenArtifact } from "./fiat-token-artifacts";

/** The EIP-712 domain USDC signs with on Base mainnet; x402's exact scheme signs the same. */
export const USDC_NAME = "USD Coin";
export const USDC_VERSION = "2";
export const USDC_SYMBOL = "USDC";
export const USDC_DECIMALS = 6;

/** The FiatToken functions the devnet calls to set the token up (the full ABI is in the artifact). */
export const fiatTokenSetupAbi = parseAbi([
  "function initialize(string tokenName, string tokenSymbol, string tokenCurrency, uint8 tokenDecimals, address newMasterMinter, address newPauser, address newBlacklister, address newOwner)",
  "function initializeV2(string newName)",
  "function initializeV2_1(address lostAndFound)",
  "function initializeV2_2(address[] accountsToBlacklist, string newSymbol)",
  "function configureMinter(address minter, uint256 minterAllowedAmount) returns (bool)",
  "function mint(address to, uint256 amount) returns (bool)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function decimals() view returns (uint8)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
]);

export type DeployUsdcOptions = {
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
  /** Owner, master minter, pauser and blacklister of the token. */
  deployer: DevAccount;
  /** Admin of the upgrade proxy: it may not call the token itself, so it must differ from the deployer. */
  proxyAdmin: DevAccount;
  /** Base-unit amounts (6 decimals) to mint at start. */
  mints: ReadonlyArray<{ to: Address; amount: bigint }>;
};

export type DeployedUsdc = { address: Address; implementation: Address; name: string; version: string; decimals: number };

/**
 * Deploys USDC the way Circle does: the FiatTokenV2_2 implementation (linked to its
 * SignatureChecker library) behind a FiatTokenProxy, initialized through v2.2, then mints the
 * demo balances. Expects anvil to mine each transaction as it arrives (instant mining).
 */
export async function deployUsdc(options: DeployUsdcOptions): Promise<DeployedUsdc> {
  const { chain, publicClient } = options;
  const deployer = createWalletClient({ chain, transport: http(), account: privateKeyToAccount(options.deployer.privateKey) });
  const proxyAdmin = createWalletClient({ chain, transport: http(), account: privateKeyToAccount(options.proxyAdmin.privateKey) });

  const deployed = async (hash: Hash): Promise<Address> => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`USDC deployment transaction ${hash} failed`);
    return receipt.contractAddress;
  };

  const signatureChecker = loadFiatTokenArtifact("SignatureChecker");
  const signatureCheckerAddress = await deployed(await deployer.deployContract({ abi: signatureChecker.abi, bytecode: signatureChecker.bytecode }));

  const implementationArtifact = loadFiatTokenArtifact("FiatTokenV2_2");
  const implementation = await deployed(
    await deployer.deployContract({
      abi: implementationArtifact.abi,
      bytecode: linkBytecode(implementationArtifact, { SignatureChecker: signatureCheckerAddress }),
    }),
  );

  // The proxy's admin is whoever deploys it.
  const proxyArtifact = loadFiatTokenArtifact("FiatTokenProxy");
  const address = await deployed(await proxyAdmin.deployContract({ abi: proxyArtifact.abi, bytecode: proxyArtifact.bytecode, args: [implementation] }));

  const owner = options.deployer.address;
  const setup: Hash[] = [];
  const call = async (request: Parameters<typeof deployer.writeContract>[0]) => {
    setup.push(await deployer.writeContract(request));
  };
  await call({ address, abi: fiatTokenSetupAbi, functionName: "initialize", args: [USDC_NAME, USDC_SYMBOL, "USD", USDC_DECIMALS, owner, owner, owner, owner] });
  await call({ address, abi: fiatTokenSetupAbi, functionName: "initializeV2", args: [USDC_NAME] });
  await call({ address, abi: fiatTokenSetupAbi, functionName: "initializeV2_1", args: [owner] });
  await call({ address, abi: fiatTokenSetupAbi, functionName: "initializeV2_2", args: [[], USDC_SYMBOL] });
  await call({ address, abi: fiatTokenSetupAbi, functionName: "configureMinter", args: [owner, maxUint256] });
  for (const mint of options.mints) {
    if (mint.amount > 0n) await call({ address, abi: fiatTokenSetupAbi, functionName: "mint", args: [mint.to, mint.amount] });
  }
  const receipts = await Promise.all(setup.map((hash) => publicClient.waitForTransactionReceipt({ hash })));
  const failed = receipts.find((receipt) => receipt.status !== "success");
  if (failed) throw new Error(`USDC setup transaction ${failed.transactionHash} failed`);

  const [name, version, decimals] = await Promise.all([
    publicClient.readContract({ address, abi: fiatTokenSetupAbi, functionName: "name" }),
    publicClient.readContract({ address, abi: fiatTokenSetupAbi, functionName: "version" }),
    publicClient.readContract({ address, abi: fiatTokenSetupAbi, functionName: "decimals" }),
  ]);
  return { address, implementation, name, version, decimals };
}
