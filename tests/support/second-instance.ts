/**
 * A second app instance beside a chat harness, as a deployment with many instances has: the
 * same configuration, network and clock, its own connection to the shared PostgreSQL database
 * and its own clients and process state. Tests of what two instances do at once use it.
 */
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import type { AppDependencies } from "../../lib/doors/app-dependencies";
import { createStore } from "../../lib/store/create-store";
import type { ChatHarness } from "./chat-harness";

export function startSecondInstance(harness: ChatHarness, databaseUrl: string, options: { now?: () => number } = {}): AppDependencies {
  return createAppDependencies(harness.env, {
    network: harness.deps.network,
    store: createStore({ database: { kind: "postgres", url: databaseUrl } }),
    baseModel: createBaseModel({ apiKey: undefined, baseUrl: undefined, modelId: harness.env.MODEL, demoChunkDelayMs: 0 }),
    ...(options.now ? { now: options.now } : {}),
  });
}
