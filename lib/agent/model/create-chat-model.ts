import "server-only";
/**
 * The model of a chat request: an OpenAI-compatible model when `OPENAI_API_KEY` is set, the
 * offline demo model otherwise; wrapped so each call gets its phase's temperature and so the
 * route can tell, before answering 200, whether the provider accepted the first call.
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { APICallError, wrapLanguageModel } from "ai";
import { DemoLanguageModel, DEMO_MODEL_ID } from "./demo-model";
import { withPhaseTemperature, type PhaseTemperatures } from "./phase-temperature";

export type ModelSettings = {
  apiKey: string | undefined;
  baseUrl: string | undefined;
  modelId: string;
  demoChunkDelayMs?: number;
};

export type BaseModel = { model: LanguageModelV4; modelId: string; isDemo: boolean };

/** Built once per process: the provider client is reusable across requests. */
export function createBaseModel(settings: ModelSettings): BaseModel {
  if (!settings.apiKey) {
    return { model: new DemoLanguageModel({ chunkDelayMs: settings.demoChunkDelayMs }), modelId: DEMO_MODEL_ID, isDemo: true };
  }
  const provider = createOpenAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl });
  // Chat Completions is what OpenAI-compatible servers implement.
  return { model: provider.chat(settings.modelId) as LanguageModelV4, modelId: settings.modelId, isDemo: false };
}

export type ModelReadiness = {
  /** Resolves when the provider accepted the first call of this request; rejects with its error. */
  ready: Promise<void>;
};

/** Retries of a model call that failed with a retryable provider error (429, 5xx, network). */
export const MODEL_CALL_RETRIES = 1;

/**
 * Per request: phase temperatures, retries, and a readiness signal for the first call. Retries
 * live here rather than in `streamText` so that readiness is decided only after them.
 */
export function wrapForRequest(base: BaseModel, temperatures: PhaseTemperatures): { model: LanguageModelV4 } & ModelReadiness {
  let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // A rejection nobody awaits (e.g. after the route already answered) must not crash the process.
  ready.catch(() => undefined);
  const model = wrapLanguageModel({
    model: base.model,
    middleware: {
      specificationVersion: "v4",
      transformParams: async ({ params }) => withPhaseTemperature(params, temperatures),
      wrapStream: async ({ doStream }) => {
        for (let attempt = 0; ; attempt++) {
          try {
            const result = await doStream();
            settle?.resolve();
            return result;
          } catch (error) {
            if (attempt < MODEL_CALL_RETRIES && APICallError.isInstance(error) && error.isRetryable) {
              await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
              continue;
            }
            settle?.reject(error);
            throw error;
          }
        }
      },
    },
  });
  return { model, ready };
}
