"use client";

/**
 * Loads the public network config, then provides it with wagmi and TanStack Query to the page.
 * Until the config arrives the page shows a placeholder with the same frame, so nothing jumps.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { WagmiProvider, type Config } from "wagmi";
import { NetworkContext } from "@/lib/client/network-context";
import { fetchPublicNetworkConfig, type PublicNetworkConfig } from "@/lib/client/public-network-config";

type LoadState = { status: "loading" } | { status: "ready"; network: PublicNetworkConfig; walletConfig: Config } | { status: "error"; message: string };

export function Providers({ children }: { children: ReactNode }) {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<LoadState>({ status: "loading" });
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false, retry: 1 } } }));

  useEffect(() => {
    const controller = new AbortController();
    // The wallet's setup (wagmi's config and connectors, the chain definitions) is loaded with
    // the network config, after the first paint, rather than as part of the page's first load.
    Promise.all([fetchPublicNetworkConfig(controller.signal), import("@/lib/client/wallet-config")])
      .then(([network, { createWalletConfig }]) => setState({ status: "ready", network, walletConfig: createWalletConfig(network) }))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setState({ status: "error", message: error instanceof Error ? error.message : "The network configuration could not be loaded." });
      });
    return () => controller.abort();
  }, [attempt]);

  if (state.status !== "ready") {
    return (
      <div className="app-shell app-shell--placeholder">
        <header className="app-header">
          <h1 className="app-title">x402 payment agent</h1>
        </header>
        <main className="placeholder" aria-busy={state.status === "loading"}>
          {state.status === "loading" ? (
            <p>Loading the network configuration…</p>
          ) : (
            <div role="alert" className="placeholder__error">
              <p>{state.message}</p>
              <button
                type="button"
                className="button"
                onClick={() => {
                  setState({ status: "loading" });
                  setAttempt((value) => value + 1);
                }}
              >
                Try again
              </button>
            </div>
          )}
        </main>
      </div>
    );
  }

  return (
    <NetworkContext value={state.network}>
      <WagmiProvider config={state.walletConfig}>
        <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
      </WagmiProvider>
    </NetworkContext>
  );
}
