/**
 * Integration harness: a real local world (anvil, USDC, facilitator, services) started
 * in-process on free ports, and the chat handler wired to it exactly as the route wires it,
 * with a memory store unless a test passes its own.
 */
import { createPublicClient, erc20Abi, http } from "viem";
import { startDevnet, type Devnet, type StartDevnetOptions } from "../../devnet";
import { createBaseModel, type BaseModel } from "../../lib/agent/model/create-chat-model";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { type AppDependencies } from "../../lib/doors/app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { parseEnv, type Env } from "../../lib/env";
import { networkConfigFromDevnet, type NetworkConfig } from "../../lib/network/network-config";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import type { Store } from "../../lib/store/store-types";
import { decodeStream, type DecodedItem, type FinishEvent, type PaymentEvent, type StreamEvent } from "../../lib/stream";

export type ChatResult = {
  response: Response;
  items: DecodedItem[];
  events: StreamEvent[];
  text: string;
  payments: PaymentEvent[];
  errors: { code: string; message: string }[];
  finish: FinishEvent | undefined;
  /** Milliseconds from the request to the end of the stream. */
  elapsedMs: number;
};

export type ChatHarness = {
  devnet: Devnet;
  deps: AppDependencies;
  env: Env;
  chat(body: unknown, init?: ChatInit): Promise<ChatResult>;
  usdcBalance(address: `0x${string}`): Promise<bigint>;
  stop(): Promise<void>;
};

export type ChatInit = {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Called with each event as it arrives, and awaited: a test can look at the world mid-stream. */
  onEvent?: (event: StreamEvent) => unknown;
};

export type ChatHarnessOptions = {
  devnet?: StartDevnetOptions;
  env?: Record<string, string>;
  store?: Store;
  baseModel?: BaseModel;
  /** The app's clock (and the store's, as a test's clock is): a test moves it to see a grant expire. */
  now?: () => number;
  /**
   * Changes to the network the app sees, decided once the local world runs (e.g. another
   * discovery server); hosts in `outboundAllowlist` are added to the local world's.
   */
  network?: (devnet: Devnet) => Promise<Partial<NetworkConfig>>;
};

export async function startChatHarness(options: ChatHarnessOptions = {}): Promise<ChatHarness> {
  const devnet = await startDevnet({ ...options.devnet });
  try {
    const env = parseEnv({
      DEMO_MODEL_CHUNK_DELAY_MS: "0",
      RATE_LIMIT_REQUESTS: "10000",
      ...options.env,
    });
    const local = networkConfigFromDevnet(devnet, env);
    const changes = (await options.network?.(devnet)) ?? {};
    const deps = createAppDependencies(env, {
      network: { ...local, ...changes, outboundAllowlist: [...local.outboundAllowlist, ...(changes.outboundAllowlist ?? [])] },
      store: options.store ?? createMemoryStore(),
      baseModel: options.baseModel ?? createBaseModel({ apiKey: undefined, baseUrl: undefined, modelId: env.MODEL, demoChunkDelayMs: 0 }),
      ...(options.now ? { now: options.now } : {}),
    });
    const client = createPublicClient({ transport: http(devnet.rpcUrl) });
    return {
      devnet,
      deps,
      env,
      async chat(body, init = {}) {
        const started = performance.now();
        const response = await handleChatRequest(
          new Request("http://127.0.0.1/api/chat", {
            method: "POST",
            headers: { "content-type": "application/json", ...init.headers },
            body: typeof body === "string" ? body : JSON.stringify(body),
            signal: init.signal,
          }),
          () => deps,
        );
        const items: DecodedItem[] = [];
        if (response.ok && response.body) {
          for await (const item of decodeStream(response.body)) {
            items.push(item);
            if (item.kind === "event") await init.onEvent?.(item.event);
          }
        }
        const events = items.flatMap((item) => (item.kind === "event" ? [item.event] : []));
        return {
          response,
          items,
          events,
          text: events.map((event) => (event.type === "text" ? event.text : "")).join(""),
          payments: events.flatMap((event) => (event.type === "payment" ? [event.payment] : [])),
          errors: events.flatMap((event) => (event.type === "error" ? [event.error] : [])),
          finish: events.flatMap((event) => (event.type === "finish" ? [event.finish] : [])).at(-1),
          elapsedMs: performance.now() - started,
        };
      },
      usdcBalance: (address) => client.readContract({ address: devnet.usdc as `0x${string}`, abi: erc20Abi, functionName: "balanceOf", args: [address] }),
      async stop() {
        await deps.store.close();
        await devnet.stop();
      },
    };
  } catch (error) {
    await devnet.stop();
    throw error;
  }
}

export function userMessage(content: string) {
  return { messages: [{ role: "user", content }] };
}
