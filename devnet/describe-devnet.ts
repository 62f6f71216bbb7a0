import { formatUsdc } from "../lib/money";
import type { DevnetCoordinates } from "../lib/network/devnet-coordinates";

/** A short human summary of a running devnet, for the terminal. */
export function describeDevnet(coordinates: DevnetCoordinates, file: string | undefined): string {
  const mining = coordinates.blockTimeSeconds === 0 ? "instant mining" : `a block every ${coordinates.blockTimeSeconds} s`;
  // A group (the guide catalogue) is one line: a hundred listings would bury the rest.
  const single = coordinates.services.filter((service) => !service.group);
  const width = Math.max(...single.map((service) => service.name.length));
  const services = single.map((service) => {
    // A metered (upto) service's price is its ceiling; its unit price is what a call costs per unit.
    const metered = service.metering ? [`upto, ${formatUsdc(BigInt(service.metering.unitPrice))} USDC per ${service.metering.unit}`] : [];
    // A channel service's price is per call, paid with a voucher after one deposit.
    const channel = service.channel
      ? [
          `batch-settlement, deposit ${formatUsdc(BigInt(service.channel.minDeposit))} USDC${service.channel.behaviour === "honest" ? "" : `, hostile: ${service.channel.behaviour}`}`,
        ]
      : [];
    const notes = [
      service.x402Version === 1 ? "x402 v1" : "x402 v2",
      ...metered,
      ...channel,
      ...(service.method === "POST" ? ["POST JSON"] : []),
      ...(service.network !== coordinates.network && service.x402Version === 2 ? [service.network ?? ""] : []),
      ...(service.offline ? ["offline"] : []),
    ].join(", ");
    const body = service.example?.body ? ` ${JSON.stringify(service.example.body)}` : "";
    return `  ${service.name.padEnd(width)}  ${`${service.metering ? "≤" : ""}${service.price} USDC`.padStart(11)}  ${service.example?.url ?? service.url}${body}  (${notes})`;
  });
  const groups = new Map<string, string[]>();
  for (const service of coordinates.services) if (service.group) groups.set(service.group, [...(groups.get(service.group) ?? []), service.url]);
  for (const [group, urls] of groups) services.push(`  ${group}: ${urls.length} more listings on ${new URL(urls[0] ?? "").origin}`);
  return [
    `chain        ${coordinates.rpcUrl}  chain id ${coordinates.chainId} (${coordinates.network}), ${mining}, ${coordinates.confirmations} confirmation(s)`,
    `USDC         ${coordinates.usdc}  ("${coordinates.usdcName}", version "${coordinates.usdcVersion}")`,
    `facilitator  ${coordinates.facilitatorUrl}  (discovery: /discovery/resources, /discovery/search?query=...)`,
    `faults       ${coordinates.faultsUrl ?? "-"}`,
    `permit2      ${coordinates.permit2 ?? "-"}  (upto proxy ${coordinates.uptoProxy ?? "-"}; agent and user approved)`,
    `channels     ${coordinates.batchSettlement ?? "-"}  (batch-settlement; ERC-3009 deposit collector ${coordinates.erc3009DepositCollector ?? "-"})`,
    `agent        ${coordinates.accounts.agent.address}`,
    `user         ${coordinates.accounts.user.address}`,
    `unfunded     ${coordinates.accounts.unfunded.address}`,
    `merchant     ${coordinates.accounts.merchant.address}`,
    "services",
    ...services,
    ...mcpToolLines(coordinates),
    ...(file ? [`coordinates  ${file}`] : []),
  ].join("\n");
}

/** Each MCP endpoint and its tools, each with its price and example arguments. */
function mcpToolLines(coordinates: DevnetCoordinates): string[] {
  const tools = coordinates.mcpTools ?? [];
  if (tools.length === 0) return [];
  const width = Math.max(...tools.map((tool) => tool.toolName.length));
  const endpoints = [...new Set(tools.map((tool) => tool.url))];
  return endpoints.flatMap((url) => {
    const served = tools.filter((tool) => tool.url === url);
    return [
      `mcp tools    ${url}  (x402 over MCP, ${served[0]?.transport === "sse" ? "HTTP+SSE" : "Streamable HTTP"})`,
      ...served.map(
        (tool) =>
          `  ${tool.toolName.padEnd(width)}  ${`${tool.price} USDC`.padStart(11)}  ${JSON.stringify(tool.arguments)}${tool.listed ? "" : "  (free, not in the Bazaar)"}`,
      ),
    ];
  });
}
