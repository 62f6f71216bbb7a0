/**
 * Runs one parsed command against a key store and says what to print and how to exit
 * (0 done, 1 failed, 2 bad arguments), so the whole command works on the memory store in tests.
 */
import type { ApiKeyStore } from "../../lib/access/api-keys";
import type { Command } from "./arguments";
import { USAGE } from "./arguments";
import { formatCreated, formatList, formatRevoked } from "./output";

export type Outcome = { code: 0 | 1 | 2; stdout: string; stderr: string };

export async function runCommand(command: Command, store: ApiKeyStore, now: number): Promise<Outcome> {
  switch (command.kind) {
    case "help":
      return { code: 0, stdout: USAGE, stderr: "" };
    case "create": {
      const { key, token } = await store.create({
        name: command.name,
        budget: command.budget,
        agentWallet: command.agentWallet,
        expiresAt: command.expiresAt,
        now,
      });
      return { code: 0, stdout: formatCreated(key, token), stderr: "" };
    }
    case "list":
      return { code: 0, stdout: formatList(await store.list(), now), stderr: "" };
    case "revoke": {
      const outcome = await store.revoke(command.id, now);
      // Revoking twice leaves the key as wanted, so it succeeds; an unknown id is a mistake.
      return outcome === "not-found"
        ? { code: 1, stdout: "", stderr: formatRevoked(command.id, outcome) }
        : { code: 0, stdout: formatRevoked(command.id, outcome), stderr: "" };
    }
  }
}
