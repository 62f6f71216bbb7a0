/**
 * Signs a grant for `curl` users: reads the answer of `POST /api/grants/prepare` (or its
 * `typedData` alone) on stdin, signs the Permit2 typed data with a key, and prints the JSON body
 * of `POST /api/grants`.
 *
 *   curl -s …/api/grants/prepare -d '{…}' | npm run -s sign-grant -- --devnet-user | curl -s …/api/grants -d @-
 *   npm run -s sign-grant -- --key 0xYOUR_KEY < prepared.json
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readGrantTypedData, viemGrantTypedData } from "../lib/grants/grant-permit";
import { formatUsdc } from "../lib/money";
import { readDevnetCoordinates } from "../lib/network/devnet-coordinates";

function usage(message: string): never {
  console.error(
    `${message}\n\nUsage: npm run -s sign-grant -- (--key 0x… | --devnet-user) [--file prepared.json]\n` +
      "Reads the answer of POST /api/grants/prepare on stdin and prints the body of POST /api/grants.",
  );
  process.exit(2);
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** The body of `POST /api/grants` for a prepare answer (or bare typed data), signed by `account`. */
export async function signedGrantBody(input: string, account: Pick<LocalAccount, "signTypedData">): Promise<{ typedData: unknown; signature: `0x${string}` }> {
  const json = JSON.parse(input) as Record<string, unknown>;
  const typedData = "typedData" in json ? json.typedData : json;
  const read = readGrantTypedData(typedData);
  if (!read) throw new Error("The input is not a grant's typed data: pass the answer of POST /api/grants/prepare.");
  // Signed from the checked terms, so what is signed is what was read and shown.
  const signature = await account.signTypedData(viemGrantTypedData(read.permit));
  return { typedData, signature };
}

async function main(): Promise<void> {
  const file = option("--file");
  const input = file ? readFileSync(file, "utf8") : readFileSync(0, "utf8");
  let key = option("--key") ?? process.env.PRIVATE_KEY;
  if (process.argv.includes("--devnet-user")) {
    key = readDevnetCoordinates(path.resolve(process.env.DEVNET_FILE ?? ".devnet/devnet.json")).accounts.user.privateKey;
  }
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) usage("A signing key is needed: --key 0x… (or PRIVATE_KEY), or --devnet-user.");
  const account = privateKeyToAccount(key as `0x${string}`);
  const body = await signedGrantBody(input, account);
  const permit = readGrantTypedData(body.typedData)?.permit;
  if (permit) {
    process.stderr.write(
      `Signed as ${account.address}: ${permit.spender} may pull up to ${formatUsdc(permit.amount)} USDC until ${new Date(Number(permit.expiration) * 1000).toISOString()}.\n`,
    );
  }
  process.stdout.write(`${JSON.stringify(body)}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
