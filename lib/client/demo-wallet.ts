/**
 * How the page names the local world's demo wallet. Apart from wallet-config.ts, which the page
 * loads only after its first paint, so the wallet panel can name the connector without it.
 */
export const LOCAL_DEMO_CONNECTOR_ID = "mock";
export const LOCAL_DEMO_WALLET_LABEL = "Local demo wallet";
