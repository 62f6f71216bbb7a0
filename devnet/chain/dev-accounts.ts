import { mnemonicToSeedSync } from "@scure/bip39";
import { bytesToHex, type Address, type Hex } from "viem";
import { HDKey, privateKeyToAddress } from "viem/accounts";

/**
 * Anvil's well-known development mnemonic. Every account derived from it is public knowledge:
 * these keys exist to make the local world's addresses stable, never to hold value.
 */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

/** Which dev account (BIP-44 address index) plays which part in the local world. */
export const ACCOUNT_INDEX = {
  /** Deploys the token and is its owner, master minter, pauser and blacklister. */
  deployer: 0,
  /** Sends the settlement transactions and pays their gas. */
  facilitator: 1,
  /** The server-side agent wallet (AGENT_PRIVATE_KEY in local mode). */
  agent: 2,
  /** The demo user's wallet for the browser's local connector. */
  user: 3,
  /** Holds ETH but no USDC: for "insufficient balance" paths. */
  unfunded: 4,
  /** Receives every demo service's payments. */
  merchant: 5,
  /** Admin of the token's upgrade proxy; a proxy admin cannot call the token itself, so it is its own account. */
  proxyAdmin: 6,
} as const;

export type AccountRole = keyof typeof ACCOUNT_INDEX;
export type DevAccount = { address: Address; privateKey: Hex };
export type DevAccounts = Record<AccountRole, DevAccount>;

/** Enough accounts for every role, with a few spare for tests. */
export const DEV_ACCOUNT_COUNT = 10;

let cached: { mnemonic: string; accounts: DevAccounts } | undefined;

/** Derives the named accounts from the mnemonic (m/44'/60'/0'/0/i, as anvil does). */
export function devAccounts(mnemonic: string = ANVIL_MNEMONIC): DevAccounts {
  if (cached?.mnemonic === mnemonic) return cached.accounts;
  // The seed derivation is deliberately slow (PBKDF2), so it is done once, not once per account.
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  const accounts = {} as DevAccounts;
  for (const [role, index] of Object.entries(ACCOUNT_INDEX) as [AccountRole, number][]) {
    const key = root.derive(`m/44'/60'/0'/0/${index}`).privateKey;
    if (!key) throw new Error(`could not derive dev account ${index}`);
    const privateKey = bytesToHex(key);
    accounts[role] = { address: privateKeyToAddress(privateKey), privateKey };
  }
  cached = { mnemonic, accounts };
  return accounts;
}
