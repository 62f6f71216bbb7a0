import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** npm ships anvil as one optional package per platform, named with Go-style architectures. */
const ARCHITECTURE_NAMES: Partial<Record<string, string>> = { x64: "amd64", arm64: "arm64" };

/**
 * Where the anvil binary from `@foundry-rs/anvil` lives on this machine. We spawn the binary
 * directly rather than the package's `bin.mjs` wrapper so that there is no extra Node process
 * between the reaper and anvil (a signal sent to the wrapper would not always reach anvil).
 * `ANVIL_BINARY` overrides the lookup, for platforms npm has no package for.
 */
export function anvilBinaryPath(): string {
  const override = process.env.ANVIL_BINARY;
  if (override) return override;
  const architecture = ARCHITECTURE_NAMES[process.arch];
  if (!architecture) throw new Error(`anvil: no @foundry-rs/anvil package for architecture ${process.arch}`);
  const packageName = `@foundry-rs/anvil-${process.platform}-${architecture}`;
  let packageDirectory: string;
  try {
    packageDirectory = dirname(require.resolve(`${packageName}/package.json`));
  } catch {
    throw new Error(`anvil: ${packageName} is not installed; run \`npm install\` (it is an optional dependency of @foundry-rs/anvil)`);
  }
  const binary = join(packageDirectory, "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
  if (!existsSync(binary)) throw new Error(`anvil: ${binary} is missing; reinstall @foundry-rs/anvil`);
  return binary;
}
