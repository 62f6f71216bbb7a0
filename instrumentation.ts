/**
 * Next.js runs `register` once when a server process starts: the configuration is checked
 * then, so a bad setting stops the server at boot (see lib/boot-check.ts), and so does a chain
 * that contradicts it (a wrong CHAIN_ID, token name or version).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkChainAtBoot, checkConfigurationAtBoot } = await import("./lib/boot-check");
  if (!checkConfigurationAtBoot()) return;
  await checkChainAtBoot();
}
