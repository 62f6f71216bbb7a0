import type { NextConfig } from "next";

/**
 * Sent with every page and API response. The payment approval card must never be shown inside
 * another site's frame, where a transparent overlay could trick a click on Approve
 * (clickjacking): `frame-ancestors 'none'` for current browsers and X-Frame-Options for older
 * ones. The policy holds nothing else, so it restricts no script or style of the app's own.
 * nosniff keeps a response from being read as another type than it declares, and no-referrer
 * tells no site the page links to (or loads from) where its visitors came from.
 */
const SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "no-referrer" },
];

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The local world (devnet/) is dev and test tooling: it is never imported by app code,
  // so it never reaches the production bundle.
  // Loaded from node_modules at run time rather than bundled: PGlite reads its WebAssembly and
  // data files next to its own modules, and the database drivers need no bundling.
  // secp256k1 loads its prebuilt native binding (lib/crypto/secp256k1.ts).
  serverExternalPackages: ["ioredis", "undici", "@electric-sql/pglite", "pg", "kysely", "secp256k1"],
  experimental: {
    // Every `next build` starts from the sources, with no Turbopack task cache carried over from
    // an earlier build in .next/cache/turbopack (on by default since Next 16.4). A cache left by
    // one build (the browser tests', `vercel build`'s) held a task stored as canceled, and every
    // later build failed on it in seconds (TurbopackInternalError: ModuleGraph::from_graphs_inner
    // was canceled) until the folder was removed. See docs/decisions.md, "Builds start cold".
    turbopackFileSystemCacheForBuild: false,
  },
  // `/:path*` also matches `/`: one rule covers every page, API route and asset.
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

export default nextConfig;
