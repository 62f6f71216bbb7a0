import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The local world (devnet/) is dev and test tooling: it is never imported by app code,
  // so it never reaches the production bundle.
  serverExternalPackages: ["ioredis", "undici"],
};

export default nextConfig;
