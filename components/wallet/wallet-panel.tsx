"use client";

import { useEffect } from "react";
import { useConnect, useConnection, useConnectors, useDisconnect, useReadContract, useSwitchChain } from "wagmi";
import { formatUsdc } from "@/lib/money";
import { shortHex } from "@/lib/client/format";
import { useNetwork } from "@/lib/client/network-context";
import { isUserRejection, walletErrorMessage } from "@/lib/client/wallet-errors";
import { LOCAL_DEMO_CONNECTOR_ID, LOCAL_DEMO_WALLET_LABEL } from "@/lib/client/demo-wallet";

/** The one ERC-20 read the panel makes; viem's whole `erc20Abi` would ship every entry to the page. */
const BALANCE_OF_ABI = [
  { type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "account", type: "address" }], outputs: [{ name: "", type: "uint256" }] },
] as const;

export type WalletPanelProps = {
  /** Changes whenever a payment settles, so the balance is read again. */
  refreshKey: number;
};

export function WalletPanel({ refreshKey }: WalletPanelProps) {
  const network = useNetwork();
  const connection = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();
  const switchChain = useSwitchChain();
  const address = connection.address;
  const balance = useReadContract({
    address: network.usdc,
    abi: BALANCE_OF_ABI,
    functionName: "balanceOf",
    args: address ? [address] : undefined,
    chainId: network.chainId,
    query: { enabled: address !== undefined, refetchInterval: 15_000 },
  });
  const { refetch } = balance;

  useEffect(() => {
    if (address && refreshKey > 0) void refetch();
  }, [address, refreshKey, refetch]);

  const networkLabel = network.label;
  const connected = connection.status === "connected" && address !== undefined;
  const wrongChain = connected && connection.chainId !== network.chainId;
  const isDemo = connection.connector?.id === LOCAL_DEMO_CONNECTOR_ID;

  if (connected) {
    return (
      <div className="wallet" data-testid="wallet-connected" data-address={address}>
        <p className="wallet__line">
          <span className="wallet__dot" aria-hidden="true" />
          <span>
            {isDemo ? LOCAL_DEMO_WALLET_LABEL : connection.connector?.id === "injected" ? "Browser wallet" : (connection.connector?.name ?? "Wallet")}{" "}
            <code title={address}>{shortHex(address)}</code>
          </span>
        </p>
        <p className="wallet__balance">
          <span className="muted">USDC balance</span>{" "}
          <strong data-testid="wallet-balance" data-base-units={balance.data?.toString()} className="tabular">
            {balance.data !== undefined ? `${formatUsdc(balance.data)} USDC` : balance.isError ? "unavailable" : "…"}
          </strong>
        </p>
        {wrongChain ? (
          <div className="wallet__warning" role="status" data-testid="wrong-network">
            <p>
              Your wallet is on another network (chain {connection.chainId}). Payments here use {networkLabel}.
            </p>
            <button type="button" className="button" disabled={switchChain.isPending} onClick={() => switchChain.mutate({ chainId: network.chainId })}>
              {switchChain.isPending ? "Switching…" : `Switch to ${networkLabel}`}
            </button>
            {switchChain.error ? (
              <p className="small">{isUserRejection(switchChain.error) ? "You declined the switch in your wallet." : walletErrorMessage(switchChain.error)}</p>
            ) : null}
          </div>
        ) : null}
        <button type="button" className="button button--small" onClick={() => disconnect.mutate({})}>
          Disconnect
        </button>
      </div>
    );
  }

  const demo = connectors.find((connector) => connector.id === LOCAL_DEMO_CONNECTOR_ID);
  const browserWallets = connectors.filter((connector) => connector.id !== LOCAL_DEMO_CONNECTOR_ID);
  return (
    <div className="wallet" data-testid="wallet-disconnected">
      <div className="wallet__actions">
        {browserWallets.map((connector) => (
          <button
            key={connector.uid}
            type="button"
            className="button"
            disabled={connect.isPending}
            // No chainId here: a declined network switch would fail the whole connection. The
            // wrong-network notice offers the switch once connected.
            onClick={() => connect.mutate({ connector })}
          >
            {connector.id === "injected" ? "Connect browser wallet" : `Connect ${connector.name}`}
          </button>
        ))}
        {demo && network.network === "local" ? (
          <button
            type="button"
            className="button button--demo"
            data-testid="connect-local-wallet"
            disabled={connect.isPending}
            onClick={() => connect.mutate({ connector: demo })}
          >
            Use {LOCAL_DEMO_WALLET_LABEL}
          </button>
        ) : null}
      </div>
      {demo && network.demoUser ? (
        <p className="small muted">
          The local demo wallet is the devnet&apos;s demo user <code>{shortHex(network.demoUser.address)}</code>; the local node signs for it. Development only.
        </p>
      ) : null}
      {connect.error ? (
        <p className="small wallet__error" role="status">
          {isUserRejection(connect.error)
            ? "You declined the connection in your wallet."
            : (connect.error as { name: string }).name === "ProviderNotFoundError"
              ? "No browser wallet was found in this browser."
              : walletErrorMessage(connect.error)}
        </p>
      ) : null}
    </div>
  );
}
