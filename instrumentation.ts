/**
 * Next.js runs `register` once when a server process starts: the configuration is checked
 * then, so a bad setting stops the server at boot (see lib/boot-check.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkConfigurationAtBoot } = await import("./lib/boot-check");
  checkConfigurationAtBoot();
}
