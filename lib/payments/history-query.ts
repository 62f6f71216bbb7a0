/** The query string of `GET /api/payments`, checked with zod. */
import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { AppError } from "../errors";
import { PaymentStatus } from "../stream";

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

const WalletAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, { message: "expected 0x and 40 hex digits", abort: true })
  // Mixed case must be a valid EIP-55 checksum, as for walletAddress in the chat request.
  .refine((value) => isAddress(value), "the mixed-case address has a wrong checksum")
  .transform((value) => getAddress(value));

/** An ISO 8601 instant (as `createdAt` and `nextCursor` are written) or epoch milliseconds. */
const Instant = z.string().transform((value, context) => {
  const epoch = /^\d{1,15}$/.test(value) ? Number(value) : z.iso.datetime({ offset: true }).safeParse(value).success ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(epoch)) {
    context.addIssue({ code: "custom", message: "expected an ISO 8601 time such as 2026-01-31T12:00:00.000Z (a nextCursor) or epoch milliseconds" });
    return z.NEVER;
  }
  return epoch;
});

const HistoryParams = z.object({
  payer: WalletAddress.optional(),
  status: PaymentStatus.optional(),
  service: z.string().min(1).max(200).optional(),
  before: Instant.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  format: z.enum(["json", "csv"]).optional(),
});
export type HistoryParams = z.infer<typeof HistoryParams>;

/** @throws AppError "bad_request:query" naming each bad parameter. */
export function parseHistoryParams(url: URL): HistoryParams {
  const raw = Object.fromEntries([...url.searchParams.entries()].filter(([, value]) => value !== ""));
  const result = HistoryParams.safeParse(raw);
  if (result.success) return result.data;
  throw new AppError("bad_request:query", { errors: result.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })) });
}
