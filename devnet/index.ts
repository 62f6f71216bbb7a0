/**
 * The local x402 world ("devnet"): development and test tooling only. App code (app/, lib/,
 * components/) must never import from here; the app reads the coordinates file instead
 * (lib/network/devnet-coordinates.ts).
 */
export { startDevnet, type Devnet } from "./start-devnet";
export type { StartDevnetOptions } from "./devnet-options";
export { DevnetFaults, FaultSettings, FaultUpdate } from "./faults";
export { DEMO_SERVICES, findDemoService, type DemoService } from "./services/service-catalog";
export { CHANNEL_SERVICES, type ChannelBehaviour, type ChannelService } from "./channels/channel-catalog";
export type { ChannelRound } from "./channels/channel-services";
export type { OverClaim } from "./channels/over-claim";
export { BATCH_SETTLEMENT, ERC3009_DEPOSIT_COLLECTOR } from "./chain/install-batch-settlement";
export { ACCOUNT_INDEX, ANVIL_MNEMONIC, devAccounts, type DevAccount } from "./chain/dev-accounts";
export { DEVNET_PROCESS_TAG, DEVNET_SUITE_TAG, findTaggedProcesses, waitForTaggedProcessesGone } from "./chain/process-tags";
export { fiatTokenSetupAbi, USDC_DECIMALS, USDC_NAME, USDC_VERSION } from "./token/deploy-usdc";
