/**
 * Signs a quote from the approval flow, for `curl` users: reads the chat stream of the first
 * request (or just its approval JSON) on stdin, signs the EIP-712 typed data with a key, and
 * prints the value of the PAYMENT-SIGNATURE header for the second request.
 *
 *   curl -sN … | npm run -s sign-payment -- --devnet-user
 *   npm run -s sign-payment -- --key 0xYOUR_KEY < approval.json
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import { neededPermit2Allowance } from "../lib/client/permit2-allowance";
import { formatUsdc } from "../lib/money";
import { readDevnetCoordinates } from "../lib/network/devnet-coordinates";
import { ApprovalRequest, decodeAll } from "../lib/stream";
import { approvalSigner, walletTypedDataOf } from "../lib/x402/approval-typed-data";
import { encodePaymentSignatureHeader } from "../lib/x402/payment-signature-header";

function usage(message: string): never {
  console.error(
    `${message}\n\nUsage: npm run -s sign-payment -- (--key 0x… | --devnet-user) [--file approval.json]\n` +
      "Reads the first request's stream (or its approval JSON) on stdin and prints the PAYMENT-SIGNATURE value.",
  );
  process.exit(2);
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** Finds the approval in whatever was given: a stream, a `p:`/`d:` payload, or the approval itself. */
export function findApproval(text: string): ApprovalRequest | undefined {
  let found: ApprovalRequest | undefined;
  for (const item of decodeAll(text)) {
    if (item.kind !== "event") continue;
    if (item.event.type === "payment" && item.event.payment.approval) found = item.event.payment.approval;
    if (item.event.type === "finish" && item.event.finish.pendingApproval) found = item.event.finish.pendingApproval.approval;
  }
  if (found) return found;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const candidates = [json, json.approval, (json.pendingApproval as Record<string, unknown> | undefined)?.approval];
    for (const candidate of candidates) {
      const parsed = ApprovalRequest.safeParse(candidate);
      if (parsed.success) return parsed.data;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

async function main(): Promise<void> {
  const file = option("--file");
  const input = file ? readFileSync(file, "utf8") : readFileSync(0, "utf8");
  let key = option("--key") ?? process.env.PRIVATE_KEY;
  if (process.argv.includes("--devnet-user")) {
    const devnet = readDevnetCoordinates(path.resolve(process.env.DEVNET_FILE ?? ".devnet/devnet.json"));
    key = devnet.accounts.user.privateKey;
  }
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) usage("A signing key is needed: --key 0x… (or PRIVATE_KEY), or --devnet-user.");
  const approval = findApproval(input);
  if (!approval) usage("No approval found in the input: pass the stream of the first request, or its `approval` JSON.");
  const account = privateKeyToAccount(key as `0x${string}`);
  const signer = approvalSigner(approval) ?? "";
  if (account.address.toLowerCase() !== signer.toLowerCase()) {
    usage(`This key belongs to ${account.address}, but the quote is for ${signer}.`);
  }
  if (approval.expiresAt * 1000 <= Date.now()) usage("The quote has expired; ask again for a fresh one.");
  const signature = await account.signTypedData(walletTypedDataOf(approval));
  if (approval.permit2Approval) {
    // The permit is signed all the same; it can only settle once the wallet has approved Permit2.
    // The allowance asked is what this payment needs, not the maximum: Permit2 lets any app whose Permit2 signature the owner gives move up to it.
    const needed = neededPermit2Allowance(approval);
    const amount =
      needed === undefined ? "the ceiling" : `${needed} (${formatUsdc(needed)} USDC, this payment's ceiling; more only if you mean Permit2 to hold that much)`;
    process.stderr.write(
      `This metered quote is paid through Permit2, which the wallet does not yet allow to move enough: send approve(${approval.permit2Approval.spender}, ${amount}) on ${approval.permit2Approval.token} from it before sending this signature (a signature sent before that is refused, and a fresh quote is needed).\n`,
    );
  }
  process.stdout.write(`${encodePaymentSignatureHeader(approval, signature)}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
