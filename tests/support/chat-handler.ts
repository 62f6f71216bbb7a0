/**
 * Shared by the tests of the chat route's handler (lib/chat/handle-chat-request*.test.ts): the
 * handler wired to a memory store and an offline network, a wallet approval it will accept, a
 * trickling body, and the problem-body reader.
 */
import type { MockLanguageModelV4 } from "ai/test";
import { getAddress } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { expect } from "vitest";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { parseEnv } from "../../lib/env";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import type { Store } from "../../lib/store/store-types";
import type { NetworkConfig } from "../../lib/network/network-config";
import { deriveAuthorizationNonce } from "../../lib/x402/authorization-nonce";
import { selectPayableRequirement } from "../../lib/x402/payment-requirements";
import { buildTransferTypedData, toViemTypedData } from "../../lib/x402/transfer-authorization";
import { offlineNetwork, textModel } from "./offline-fixtures";

export const QUOTE_SECRET = "handler-test-quote-secret-0123456789abcdef0123456789";

export function setup(options: { env?: Record<string, string>; model?: MockLanguageModelV4; store?: Store; now?: () => number } = {}) {
  const env = parseEnv({ RATE_LIMIT_REQUESTS: "1000", QUOTE_SECRET, ...options.env });
  const model = options.model ?? textModel("Hello!");
  const deps = createAppDependencies(env, {
    network: offlineNetwork,
    store: options.store ?? createMemoryStore(),
    baseModel: { model, modelId: "mock", isDemo: false },
    now: options.now,
  });
  const send = (body: unknown, headers: Record<string, string> = {}) =>
    handleChatRequest(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: body instanceof ReadableStream ? body : typeof body === "string" ? body : JSON.stringify(body),
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit),
      () => deps,
    );
  return { send, model, deps };
}

/**
 * A wallet's EIP-3009 signature over `requirements` for `url`, with the nonce derived as the
 * handler derives it (under `quoteSecret`): what a wallet's approval carries.
 */
export async function signApprovalFor(
  payer: PrivateKeyAccount,
  requirements: Record<string, unknown>,
  options: { network: NetworkConfig; quoteSecret: string; url: string; method: "GET" | "POST"; validAfter: bigint; validBefore: bigint },
) {
  const { network, url, method, validAfter, validBefore } = options;
  const selection = selectPayableRequirement({ x402Version: 2, accepts: [requirements] }, network);
  if (!selection.ok) throw new Error(selection.reason);
  const nonce = deriveAuthorizationNonce(options.quoteSecret, {
    payer: payer.address,
    payTo: selection.option.payTo,
    amount: selection.option.amount,
    asset: selection.option.asset,
    network: selection.option.network,
    chainId: network.chainId,
    resource: url,
    method,
    validAfter,
    validBefore,
    requirements: selection.option.requirements,
    intent: "",
  });
  const typedData = buildTransferTypedData(selection.option, payer.address, network.chainId, { validAfter, validBefore, nonce });
  const signature = await payer.signTypedData(toViemTypedData(typedData));
  return { typedData, signature };
}

/** A wallet's PAYMENT-SIGNATURE for a quote the handler will accept (its service is never reached). */
export async function signedApproval(payer: PrivateKeyAccount): Promise<string> {
  const requirements = {
    scheme: "exact",
    network: offlineNetwork.caip2,
    amount: "10000",
    asset: offlineNetwork.usdc,
    payTo: getAddress(`0x${"ab".repeat(20)}`),
    maxTimeoutSeconds: 120,
    extra: { name: "USD Coin", version: "2" },
  };
  const nowSeconds = BigInt(Math.floor(Date.now() / 1000));
  // Loopback port 9 is not allowlisted: the purchase is refused before connecting.
  const url = "http://127.0.0.1:9/paid";
  const { typedData, signature } = await signApprovalFor(payer, requirements, {
    network: offlineNetwork,
    quoteSecret: QUOTE_SECRET,
    url,
    method: "GET",
    validAfter: nowSeconds - 60n,
    validBefore: nowSeconds + 600n,
  });
  const payload = { x402Version: 2, resource: { url, method: "GET" }, accepted: requirements, payload: { signature, authorization: typedData.message } };
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
}

/** A body that sends one byte every `intervalMs`, `chunks` times, then a valid request. */
export function tricklingBody(chunks: number, intervalMs: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
        sent += 1;
        if (sent <= chunks) {
          controller.enqueue(encoder.encode(" "));
        } else {
          controller.enqueue(encoder.encode(JSON.stringify(hello)));
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
}

export const hello = { messages: [{ role: "user", content: "hi" }] };

export async function problem(response: Response) {
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  return (await response.json()) as { status: number; code: string; errors?: { path: string; message: string }[] };
}
