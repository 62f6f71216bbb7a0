import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The local world (devnet/) is dev and test tooling: it is never imported by app code,
  // so it never reaches the production bundle.
  // Loaded from node_modules at run time rather than bundled: PGlite reads its WebAssembly and
  // data files next to its own modules, and the database drivers need no bundling.
  // secp256k1 loads its prebuilt native binding (lib/crypto/secp256k1.ts).
  serverExternalPackages: ["ioredis", "undici", "@electric-sql/pglite", "pg", "kysely", "secp256k1"],
};

export default nextConfig;
