/**
 * The chat request body of the spec (section 2), validated at the edge. The browser shares its
 * types and size limits (chat-size-limits.ts), so the page sends exactly what the server accepts.
 */
import { getAddress, isAddress, zeroAddress } from "viem";
import { z } from "zod";
import { SpendingLimitsInput } from "../limits/spending-limits-input";
import { MAX_MESSAGE_CHARS, MAX_MESSAGES, MAX_TOTAL_CHARS } from "./chat-size-limits";

export { MAX_MESSAGE_CHARS, MAX_MESSAGES, MAX_TOTAL_CHARS };
/** The largest body the route reads, in bytes; larger bodies are refused before parsing. */
export const MAX_BODY_BYTES = 256 * 1024;

export const ChatRole = z.enum(["user", "assistant", "system"]);

export const ChatMessage = z.strictObject({
  role: ChatRole,
  content: z.string().max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * An EVM address: all-lowercase, all-uppercase, or a correct EIP-55 checksum when mixed case;
 * the zero address is refused because nobody can sign for it.
 */
/** EIP-55 checksums only mixed-case addresses; all-lowercase and all-uppercase carry none. */
function isSingleCase(value: string): boolean {
  const hex = value.slice(2);
  return hex === hex.toLowerCase() || hex === hex.toUpperCase();
}

export const WalletAddress = z
  .string()
  .refine((value) => /^0x[0-9a-fA-F]{40}$/.test(value), { message: "must be a 0x-prefixed 20-byte hex address" })
  .refine((value) => !/^0x[0-9a-fA-F]{40}$/.test(value) || isSingleCase(value) || isAddress(value, { strict: true }), {
    message: "has an invalid EIP-55 checksum",
  })
  .refine((value) => value.toLowerCase() !== zeroAddress, { message: "must not be the zero address" })
  .transform((value) => getAddress(value));

export const ChatRequestBody = z
  .strictObject({
    messages: z.array(ChatMessage).min(1, "must contain at least one message").max(MAX_MESSAGES, `must contain at most ${MAX_MESSAGES} messages`),
    walletAddress: WalletAddress.optional(),
    spendingLimits: SpendingLimitsInput.optional(),
  })
  .superRefine((body, context) => {
    const total = body.messages.reduce((sum, message) => sum + message.content.length, 0);
    if (total > MAX_TOTAL_CHARS) {
      context.addIssue({ code: "custom", path: ["messages"], message: `must total at most ${MAX_TOTAL_CHARS} characters` });
    }
    if (body.messages.at(-1)?.role !== "user") {
      context.addIssue({ code: "custom", path: ["messages"], message: "must end with a user message" });
    }
  });
export type ChatRequestBody = z.infer<typeof ChatRequestBody>;
/** The body as a client writes it (before the address is normalised). */
export type ChatRequestInput = z.input<typeof ChatRequestBody>;
