import type { DevnetCoordinates } from "../lib/network/devnet-coordinates";

/** A short human summary of a running devnet, for the terminal. */
export function describeDevnet(coordinates: DevnetCoordinates, file: string | undefined): string {
  const mining = coordinates.blockTimeSeconds === 0 ? "instant mining" : `a block every ${coordinates.blockTimeSeconds} s`;
  const width = Math.max(...coordinates.services.map((service) => service.name.length));
  const services = coordinates.services.map((service) => {
    const notes = [service.x402Version === 1 ? "x402 v1" : "x402 v2", ...(service.offline ? ["offline"] : [])].join(", ");
    const query = new URLSearchParams(service.queryParams).toString();
    return `  ${service.name.padEnd(width)}  ${`${service.price} USDC`.padStart(10)}  ${service.url}${query ? `?${query}` : ""}  (${notes})`;
  });
  return [
    `chain        ${coordinates.rpcUrl}  chain id ${coordinates.chainId} (${coordinates.network}), ${mining}, ${coordinates.confirmations} confirmation(s)`,
    `USDC         ${coordinates.usdc}  ("${coordinates.usdcName}", version "${coordinates.usdcVersion}")`,
    `facilitator  ${coordinates.facilitatorUrl}  (discovery: /discovery/resources, /discovery/search?query=...)`,
    `faults       ${coordinates.faultsUrl ?? "-"}`,
    `agent        ${coordinates.accounts.agent.address}`,
    `user         ${coordinates.accounts.user.address}`,
    `unfunded     ${coordinates.accounts.unfunded.address}`,
    `merchant     ${coordinates.accounts.merchant.address}`,
    "services",
    ...services,
    ...(file ? [`coordinates  ${file}`] : []),
  ].join("\n");
}
