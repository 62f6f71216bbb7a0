import { createServer, get } from "node:http";
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { AuthorizerSigner } from "@x402/evm";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import express, { type NextFunction, type Request, type Response } from "express";
import { concat, keccak256, stringToHex, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { closeServer, listen, LOOPBACK_HOST } from "../http/listen";
import { MAX_TIMEOUT_SECONDS, type PaymentTerms } from "../services/payment-terms";
import type { ChannelService } from "./channel-catalog";

/**
 * The withdraw delay every channel service asks for: the scheme's minimum (15 minutes), the
 * time a payer who withdraws alone waits, and the service has to claim what it is owed.
 */
export const CHANNEL_WITHDRAW_DELAY_SECONDS = 900;

/**
 * A channel service's own payee (its `payTo`, the channels' `receiver`). A channel is per payer
 * and receiver, so two services paid to one address would share each payer's channel, and each
 * would need the other's record of it; like separate companies, each has its own. The address is
 * derived from the merchant's key and the service's name, so it is stable and its key known
 * (`keccak256(merchantKey ‖ "x402 channel payee <name>")`); the merchant's key stays the receiver
 * authorizer that signs every channel service's claims and refunds.
 */
export function channelPayee(merchantKey: Hex, name: string): Address {
  return privateKeyToAccount(keccak256(concat([merchantKey, stringToHex(`x402 channel payee ${name}`)]))).address;
}

/** One channel service, served: its URL, the `accepts` of its own 402, and its scheme's state. */
export type ChannelServer = {
  service: ChannelService;
  url: string;
  payTo: Address;
  accepts: Record<string, unknown>[];
  /** The same, as the payment requirements the scheme works with. */
  requirements: PaymentRequirements;
  /** The extensions of its 402: the bazaar declaration as the resource server answers it (with the method). */
  extensions: Record<string, unknown>;
  scheme: BatchSettlementEvmScheme;
  facilitator: HTTPFacilitatorClient;
  stop(): Promise<void>;
};

/** The payee's key as the scheme's receiver authorizer: it signs the service's claims and refunds. */
export function payeeAuthorizer(payeeKey: Hex): AuthorizerSigner {
  const account = privateKeyToAccount(payeeKey);
  return { address: account.address, signTypedData: (request) => account.signTypedData(request as Parameters<typeof account.signTypedData>[0]) };
}

/**
 * Serves one channel service with the official server packages only: `@x402/express`'s
 * `paymentMiddleware` over `@x402/core`'s resource server, `@x402/evm`'s batch-settlement server
 * scheme (which keeps each channel's state, checks vouchers itself and sends deposits and
 * refunds to the facilitator) and the bazaar extension. The service's inputs are checked before
 * the middleware, so a bad call is refused with 400 before anything is signed or verified.
 */
export async function startChannelServer(service: ChannelService, terms: PaymentTerms, facilitatorUrl: string): Promise<ChannelServer> {
  if (!terms.payeeKey) throw new Error(`${service.name}: a channel service needs the payee's key to sign its claims`);
  const facilitator = new HTTPFacilitatorClient({ url: facilitatorUrl });
  const payTo = channelPayee(terms.payeeKey, service.name);
  const scheme = new BatchSettlementEvmScheme(payTo, {
    receiverAuthorizerSigner: payeeAuthorizer(terms.payeeKey),
    withdrawDelay: CHANNEL_WITHDRAW_DELAY_SECONDS,
  });
  const resourceServer = new x402ResourceServer(facilitator).register(terms.network, scheme).registerExtension(bazaarResourceServerExtension);
  const examples = Object.fromEntries(Object.entries(service.parameters).map(([key, parameter]) => [key, parameter.example]));
  const route = {
    accepts: {
      scheme: "batch-settlement",
      network: terms.network,
      payTo,
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      // The local USDC named outright (the package's default assets know public chains only),
      // with its EIP-712 domain for the deposit's authorization and the deposit to suggest.
      price: {
        amount: service.price.toString(),
        asset: terms.token.address,
        extra: { name: terms.token.name, version: terms.token.version, minDeposit: service.minDeposit.toString() },
      },
    },
    description: service.description,
    mimeType: "application/json",
    serviceName: service.serviceName,
    tags: service.tags,
    extensions: declareDiscoveryExtension({
      input: examples,
      inputSchema: {
        properties: Object.fromEntries(
          Object.entries(service.parameters).map(([key, parameter]) => [key, { type: "string", description: parameter.description }]),
        ),
        required: Object.keys(service.parameters),
      },
      output: { example: service.produce(examples) },
    }),
  };

  const app = express();
  app.disable("x-powered-by");
  app.get(service.path, (request, response, next) => {
    const input = service.input.safeParse(request.query);
    if (!input.success) return void response.status(400).json({ error: input.error.issues.map((issue) => issue.message).join("; ") });
    next();
  });
  if (service.behaviour === "refuses-vouchers") app.get(service.path, refuseVouchers);
  app.use(paymentMiddleware({ [`GET ${service.path}`]: route }, resourceServer));
  app.get(service.path, (request, response) => {
    response.json(service.produce(service.input.parse(request.query)));
  });

  const server = createServer(app);
  const port = await listen(server);
  const url = `http://${LOOPBACK_HOST}:${port}${service.path}`;
  try {
    const { accepts: offered, extensions = {} } = await ownPaymentRequired(service, url);
    const [requirements] = offered;
    if (!requirements || offered.length !== 1) throw new Error(`${service.name}: its 402 should offer one option, not ${offered.length}`);
    return {
      service,
      url,
      payTo,
      accepts: offered.map((accept) => ({ ...accept })),
      requirements,
      extensions,
      scheme,
      facilitator,
      stop: () => closeServer(server),
    };
  } catch (error) {
    await closeServer(server);
    throw error;
  }
}

/**
 * The deposit trap's refusal: a payment that is a voucher (the payer's channel already holds its
 * deposit) gets a 402 and no answer, before the payment middleware sees it. A deposit (the first
 * call) is taken and served as usual.
 */
function refuseVouchers(request: Request, response: Response, next: NextFunction): void {
  const header = request.header("payment-signature");
  let type: unknown;
  try {
    type = header ? (decodePaymentSignatureHeader(header).payload as { type?: unknown }).type : undefined;
  } catch {
    type = undefined;
  }
  if (type !== "voucher") return next();
  response.status(402).json({ error: "voucher_refused", detail: "This service takes deposits and refuses vouchers (a hostile devnet service)." });
}

/**
 * The service's own 402 for its example call, from which a facilitator records its listing.
 * Asked on a connection of its own that closes after the answer: a socket left in fetch's shared
 * pool would be closed by the server's keep-alive timeout just as the first caller reused it.
 */
async function ownPaymentRequired(service: ChannelService, url: string): Promise<PaymentRequired> {
  const example = new URL(url);
  for (const [key, parameter] of Object.entries(service.parameters)) example.searchParams.set(key, parameter.example);
  const { status, header } = await new Promise<{ status: number; header: string | undefined }>((resolve, reject) => {
    const request = get(example, { agent: false }, (response) => {
      response.resume();
      const value = response.headers["payment-required"];
      resolve({ status: response.statusCode ?? 0, header: Array.isArray(value) ? value[0] : value });
    });
    request.on("error", reject);
  });
  if (status !== 402 || !header) throw new Error(`${service.name}: expected a 402 with PAYMENT-REQUIRED, got ${status}`);
  return decodePaymentRequiredHeader(header);
}
