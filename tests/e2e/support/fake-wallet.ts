import type { Page } from "playwright-core";

export type FakeWalletOptions = {
  account: string;
  /** The chain the wallet starts on, as a number. */
  chainId: number;
  /** Answer eth_signTypedData_v4 with EIP-1193 error 4001, as when a person clicks "Reject". */
  refuseToSign?: boolean;
};

/**
 * A minimal EIP-1193 browser wallet (`window.ethereum`) for the injected connector: one
 * account, a chain that `wallet_switchEthereumChain` changes (with `chainChanged`), and a
 * signature prompt the "person" refuses. Every call is recorded in `window.__walletCalls`.
 */
export async function installFakeWallet(page: Page, options: FakeWalletOptions): Promise<void> {
  await page.addInitScript((settings: FakeWalletOptions) => {
    const listeners = new Map<string, ((value: unknown) => void)[]>();
    let chainId = `0x${settings.chainId.toString(16)}`;
    const calls: string[] = [];
    (window as unknown as { __walletCalls: string[] }).__walletCalls = calls;
    const emit = (event: string, value: unknown) => {
      for (const listener of listeners.get(event) ?? []) listener(value);
    };
    const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
    (window as unknown as { ethereum: unknown }).ethereum = {
      async request({ method, params }: { method: string; params?: unknown[] }) {
        calls.push(method);
        switch (method) {
          case "eth_requestAccounts":
          case "eth_accounts":
            return [settings.account];
          case "eth_chainId":
            return chainId;
          case "wallet_requestPermissions":
            return [];
          case "wallet_revokePermissions":
            return null;
          case "wallet_switchEthereumChain": {
            chainId = (params?.[0] as { chainId: string }).chainId;
            setTimeout(() => emit("chainChanged", chainId), 0);
            return null;
          }
          case "eth_signTypedData_v4":
            if (settings.refuseToSign) throw rpcError(4001, "User rejected the request.");
            throw rpcError(4200, "This fake wallet cannot sign.");
          default:
            throw rpcError(4200, `The fake wallet does not support ${method}.`);
        }
      },
      on(event: string, listener: (value: unknown) => void) {
        listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      },
      removeListener(event: string, listener: (value: unknown) => void) {
        listeners.set(
          event,
          (listeners.get(event) ?? []).filter((item) => item !== listener),
        );
      },
    };
  }, options);
}
