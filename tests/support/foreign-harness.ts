/**
 * The app with a scripted OpenAI-compatible model, next to the foreign world (foreign-world.ts)
 * on the local chain: `discovery: "foreign"` points the app's discovery at the foreign bazaar,
 * `"local"` keeps the local facilitator's, so the foreign services are reachable but unlisted.
 * Each foreign service gets a fresh payee, so its balance shows exactly what it was paid.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { startChatHarness, type ChatHarness } from "./chat-harness";
import { startFakeOpenAiServer, type ChatScript, type FakeOpenAiServer } from "./fake-openai-server";
import { startForeignWorld, type ForeignWorld } from "./foreign-world";

export type ForeignHarness = { harness: ChatHarness; fake: FakeOpenAiServer; world: ForeignWorld; stop(): Promise<void> };

export async function startForeignHarness(script: ChatScript, discovery: "foreign" | "local"): Promise<ForeignHarness> {
  const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
  const fake = await startFakeOpenAiServer(script);
  let world: ForeignWorld | undefined;
  try {
    const harness = await startChatHarness({
      baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }),
      // These worlds count every request a service receives: the purchase's own, no unpaid
      // probe beside them (probes are tested in tests/integration/evidence-discovery.test.ts).
      env: { DISCOVERY_PROBES: "false" },
      network: async (devnet) => {
        world = await startForeignWorld(devnet, { translate: fresh(), quote: fresh(), convert: fresh() });
        return discovery === "foreign" ? { facilitatorUrl: world.bazaarUrl, outboundAllowlist: world.hosts } : { outboundAllowlist: world.hosts };
      },
    });
    const started = world as ForeignWorld | undefined;
    if (!started) throw new Error("the foreign world did not start");
    return {
      harness,
      fake,
      world: started,
      async stop() {
        await harness.stop();
        await started.stop();
        await fake.stop();
      },
    };
  } catch (error) {
    await world?.stop();
    await fake.stop();
    throw error;
  }
}
