/**
 * A facilitator built from the official x402 packages only: `@x402/core`'s `x402Facilitator`
 * with `@x402/evm`'s exact facilitator scheme (settling EIP-3009 transfers with a viem wallet),
 * the bazaar extension's facilitator side (`BAZAAR`, so `/supported` announces it), and a
 * catalogue filled from verified payments (official-bazaar-catalogue.ts). Served over HTTP with
 * the routes `@x402/core`'s `HTTPFacilitatorClient` and `@x402/extensions`' `withBazaar` call:
 * `POST /verify`, `POST /settle`, `GET /supported`, `GET /discovery/resources`. Requests are
 * checked with the package's own schemas; there is no search route (a Bazaar need not have one).
 */
import { createServer } from "node:http";
import { x402Facilitator } from "@x402/core/facilitator";
import { PaymentPayloadSchema, PaymentRequirementsSchema } from "@x402/core/schemas";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { BAZAAR } from "@x402/extensions/bazaar";
import express, { type Request, type Response } from "express";
import { createWalletClient, http, publicActions, type Chain } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { LOCAL_POLLING_INTERVAL_MS } from "../../devnet/chain/local-chain";
import { closeServer, listen, LOOPBACK_HOST } from "../../devnet/http/listen";
import { MAX_PAGE_SIZE, OfficialBazaarCatalogue } from "./official-bazaar-catalogue";

/** How long the facilitator waits for a settlement's receipt (anvil mines at once). */
const CONFIRMATION_TIMEOUT_MS = 20_000;

export type OfficialFacilitatorOptions = {
  chain: Chain;
  network: Network;
  /** The key of the account that sends settlements and pays their gas. */
  privateKey: `0x${string}`;
};

export type OfficialFacilitator = {
  url: string;
  facilitator: x402Facilitator;
  catalogue: OfficialBazaarCatalogue;
  /** Every verify and settle request, in order (what the services asked of the facilitator). */
  calls: { path: "verify" | "settle"; paymentPayload: PaymentPayload }[];
  stop(): Promise<void>;
};

/** The body both `POST /verify` and `POST /settle` take, as `HTTPFacilitatorClient` sends it. */
const PaymentRequest = z.object({ paymentPayload: z.unknown(), paymentRequirements: z.unknown() });

const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  type: z.string().max(32).optional(),
});

export function createOfficialFacilitator(options: OfficialFacilitatorOptions): { facilitator: x402Facilitator; catalogue: OfficialBazaarCatalogue } {
  const account = privateKeyToAccount(options.privateKey);
  const client = createWalletClient({ account, chain: options.chain, transport: http(), pollingInterval: LOCAL_POLLING_INTERVAL_MS }).extend(publicActions);
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode: (args) => client.getCode(args),
      readContract: (args) => client.readContract({ ...args, args: args.args ?? [] }),
      // The scheme passes EIP-712 typed data as plain records; viem checks them at run time.
      verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
      writeContract: (args) => client.writeContract({ ...args, args: args.args ?? [] } as Parameters<typeof client.writeContract>[0]),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    },
    { confirmationTimeoutMs: CONFIRMATION_TIMEOUT_MS },
  );
  const catalogue = new OfficialBazaarCatalogue();
  const facilitator = new x402Facilitator()
    .register(options.network, new ExactEvmScheme(signer))
    .registerExtension(BAZAAR)
    // As the official bazaar facilitator does: a verified payment tells what it paid for.
    .onAfterVerify(async ({ paymentPayload, requirements }) => {
      catalogue.addFromPayment(paymentPayload, requirements);
    });
  return { facilitator, catalogue };
}

export async function startOfficialFacilitator(options: OfficialFacilitatorOptions): Promise<OfficialFacilitator> {
  const { facilitator, catalogue } = createOfficialFacilitator(options);
  const calls: OfficialFacilitator["calls"] = [];
  const app = express();
  app.use(express.json({ limit: "256kb" }));

  const paymentRoute = (path: "verify" | "settle") => async (request: Request, response: Response) => {
    const body = PaymentRequest.safeParse(request.body);
    const payload = PaymentPayloadSchema.safeParse(body.success ? body.data.paymentPayload : undefined);
    const requirements = PaymentRequirementsSchema.safeParse(body.success ? body.data.paymentRequirements : undefined);
    if (!payload.success || !requirements.success) {
      response.status(400).json({ error: "expected { paymentPayload, paymentRequirements } as x402 defines them" });
      return;
    }
    const paymentPayload = payload.data as PaymentPayload;
    const paymentRequirements = requirements.data as PaymentRequirements;
    calls.push({ path, paymentPayload });
    try {
      const result =
        path === "verify" ? await facilitator.verify(paymentPayload, paymentRequirements) : await facilitator.settle(paymentPayload, paymentRequirements);
      response.json(result);
    } catch (error) {
      response.status(500).json({ error: error instanceof Error ? error.message : String(error) });
    }
  };
  app.post("/verify", paymentRoute("verify"));
  app.post("/settle", paymentRoute("settle"));
  app.get("/supported", (_request, response) => {
    response.json(facilitator.getSupported());
  });
  app.get("/discovery/resources", (request, response) => {
    const query = PageQuery.safeParse(request.query);
    if (!query.success) {
      response.status(400).json({ error: `limit must be 1-${MAX_PAGE_SIZE}, offset 0 or more` });
      return;
    }
    response.json(catalogue.page(query.data));
  });
  // The same catalogue as a 2.10-era facilitator lists it (top-level `discoveryInfo`), under a
  // base URL of its own: `<url>/v2.10` is a facilitator URL an agent can be configured with.
  app.get("/v2.10/discovery/resources", (request, response) => {
    const query = PageQuery.safeParse(request.query);
    if (!query.success) {
      response.status(400).json({ error: `limit must be 1-${MAX_PAGE_SIZE}, offset 0 or more` });
      return;
    }
    response.json(catalogue.legacyPage(query.data));
  });

  const server = createServer(app);
  const port = await listen(server);
  return {
    url: `http://${LOOPBACK_HOST}:${port}`,
    facilitator,
    catalogue,
    calls,
    stop: () => closeServer(server),
  };
}
