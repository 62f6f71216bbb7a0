/** What the figures were measured on: machine, runtime, library versions, source revision. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./app-server";

export type MachineInfo = {
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  os: string;
  node: string;
  versions: Record<string, string>;
  revision: string;
  /** Files with changes not yet committed when the run started (other engineers' work in progress). */
  uncommitted: string[];
};

const PACKAGES = [
  "next",
  "react",
  "ai",
  "@ai-sdk/openai",
  "@x402/core",
  "@x402/evm",
  "@x402/fetch",
  "@x402/extensions",
  "viem",
  "zod",
  "undici",
  "@foundry-rs/anvil",
];

function packageVersion(name: string): string {
  try {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")) as { version?: string };
    return manifest.version ?? "?";
  } catch {
    return "not installed";
  }
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return "";
  }
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    versions: Object.fromEntries(PACKAGES.map((name) => [name, packageVersion(name)])),
    revision: git(["rev-parse", "--short", "HEAD"]).trim() || "unknown",
    uncommitted: git(["status", "--porcelain", "--untracked-files=no"])
      .split("\n")
      // "XY path": two status letters and a space before the path.
      .map((line) => line.slice(3).trim())
      .filter(Boolean),
  };
}
