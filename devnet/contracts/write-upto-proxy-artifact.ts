/**
 * `npm run devnet:contracts`: compiles the devnet's `upto` proxy and rewrites its committed
 * artifact. Run it after editing x402UptoPermit2Proxy.sol; upto-proxy-artifact.test.ts fails
 * until the artifact matches the source.
 */
import { writeFileSync } from "node:fs";
import { compileUptoProxy } from "./compile-upto-proxy";
import { uptoProxyArtifactPath } from "./upto-proxy-artifact";

const artifact = compileUptoProxy();
writeFileSync(uptoProxyArtifactPath(), `${JSON.stringify(artifact, null, 2)}\n`);
console.log(`wrote ${uptoProxyArtifactPath()} (${artifact.compiler}, ${(artifact.runtimeBytecode.length - 2) / 2} bytes of runtime code)`);
