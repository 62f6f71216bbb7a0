import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatReport, inspectBuildOutput, measureFunction, type Check } from "./build-output";

let project: string;
let output: string;

beforeEach(async () => {
  project = await mkdtemp(path.join(tmpdir(), "vercel-check-test-"));
  output = path.join(project, ".vercel", "output");
});

afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

async function write(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

const GOOD_FUNCTION = {
  runtime: "nodejs22.x",
  handler: "___next_launcher.cjs",
  maxDuration: 50,
  supportsResponseStreaming: true,
  launcherType: "Nodejs",
  filePathMap: { "node_modules/lib/index.js": "node_modules/lib/index.js" },
};

/** An output folder shaped like the Next.js builder's, with the given changes. */
async function writeOutput(changes: { chat?: object; mcp?: object; reconcile?: object; crons?: object[] } = {}): Promise<void> {
  await write(path.join(project, "node_modules/lib/index.js"), "x".repeat(1000));
  await write(
    path.join(output, "config.json"),
    JSON.stringify({ version: 3, routes: [], crons: changes.crons ?? [{ path: "/api/cron/reconcile", schedule: "* * * * *" }] }),
  );
  await write(path.join(output, "functions/api/chat.func/.vc-config.json"), JSON.stringify({ ...GOOD_FUNCTION, ...changes.chat }));
  await write(path.join(output, "functions/api/chat.func/___next_launcher.cjs"), "y".repeat(500));
  await write(path.join(output, "functions/api/mcp.func/.vc-config.json"), JSON.stringify({ ...GOOD_FUNCTION, ...changes.mcp }));
  await write(path.join(output, "functions/api/mcp.func/___next_launcher.cjs"), "y".repeat(500));
  await write(
    path.join(output, "functions/api/cron/reconcile.func/.vc-config.json"),
    JSON.stringify({ ...GOOD_FUNCTION, supportsResponseStreaming: false, ...changes.reconcile }),
  );
}

function failed(checks: Check[]): string[] {
  return checks.filter((check) => !check.ok).map((check) => `${check.name}: ${check.found}`);
}

describe("inspectBuildOutput", () => {
  it("passes an output with maxDuration 50, Node 22, streaming and the cron", async () => {
    await writeOutput();
    const { checks, sizes } = await inspectBuildOutput(output, project);
    expect(failed(checks)).toEqual([]);
    expect(checks.map((check) => check.name)).toEqual([
      "/api/chat maxDuration",
      "/api/chat runtime",
      "/api/chat streaming",
      "/api/chat size",
      "/api/mcp maxDuration",
      "/api/mcp runtime",
      "/api/mcp streaming",
      "/api/mcp size",
      "/api/cron/reconcile maxDuration",
      "/api/cron/reconcile runtime",
      "/api/cron/reconcile size",
      "cron",
    ]);
    // The launcher, the .vc-config.json and the traced file.
    expect(sizes.get("/api/chat")).toMatchObject({ files: 3, missing: [] });
  });

  it("fails a maxDuration of 60 or none", async () => {
    await writeOutput({ chat: { maxDuration: 60 }, reconcile: { maxDuration: undefined } });
    expect(failed((await inspectBuildOutput(output, project)).checks)).toEqual(["/api/chat maxDuration: 60", "/api/cron/reconcile maxDuration: unset"]);
  });

  it("fails a runtime other than Node 22", async () => {
    await writeOutput({ chat: { runtime: "nodejs20.x" }, reconcile: { runtime: "nodejs24.x" } });
    expect(failed((await inspectBuildOutput(output, project)).checks)).toEqual(["/api/chat runtime: nodejs20.x", "/api/cron/reconcile runtime: nodejs24.x"]);
  });

  it("fails a chat function that does not stream", async () => {
    await writeOutput({ chat: { supportsResponseStreaming: undefined } });
    expect(failed((await inspectBuildOutput(output, project)).checks)).toEqual(["/api/chat streaming: off"]);
  });

  it("fails when the reconcile cron is missing", async () => {
    await writeOutput({ crons: [{ path: "/api/other", schedule: "0 * * * *" }] });
    expect(failed((await inspectBuildOutput(output, project)).checks)).toEqual(["cron: absent"]);
    await writeOutput({ crons: [] });
    expect(failed((await inspectBuildOutput(output, project)).checks)).toEqual(["cron: absent"]);
  });

  it("fails a function of 250 MB or more, counting the files its filePathMap names", async () => {
    await writeOutput({ chat: { filePathMap: { "node_modules/big/blob.wasm": "node_modules/big/blob.wasm" } } });
    const big = path.join(project, "node_modules/big/blob.wasm");
    await write(big, "");
    await truncate(big, 250 * 1024 * 1024); // sparse: no disk used
    const { checks } = await inspectBuildOutput(output, project);
    expect(failed(checks)).toEqual([expect.stringMatching(/^\/api\/chat size: 250\.00 MB \(3 files\)$/)]);
  });

  it("fails a function whose traced file is missing", async () => {
    await writeOutput({ chat: { filePathMap: { "node_modules/gone.js": "node_modules/gone.js" } } });
    expect(failed((await inspectBuildOutput(output, project)).checks)).toEqual([
      expect.stringMatching(/^\/api\/chat size: .*1 missing: node_modules\/gone\.js$/),
    ]);
  });

  it("reports a missing function, an unreadable .vc-config.json and a missing config.json", async () => {
    await writeOutput();
    await rm(path.join(output, "functions/api/cron"), { recursive: true });
    await write(path.join(output, "functions/api/chat.func/.vc-config.json"), JSON.stringify({ runtime: 22 }));
    await rm(path.join(output, "config.json"));
    const { checks } = await inspectBuildOutput(output, project);
    // The MCP function is still there and fine; the three broken parts are each named.
    const broken = checks.filter((check) => !check.ok);
    expect(broken.map((check) => check.name)).toEqual(["/api/chat .vc-config.json", "/api/cron/reconcile .vc-config.json", "config.json"]);
    expect(checks.filter((check) => check.name.startsWith("/api/mcp")).every((check) => check.ok)).toBe(true);
    expect(broken[1]!.found).toBe("missing");
    expect(broken[2]!.found).toBe("missing");
  });

  it("reads a function folder that is a link to another, as the builder writes grouped functions", async () => {
    await writeOutput();
    await rm(path.join(output, "functions/api/cron"), { recursive: true });
    await mkdir(path.join(output, "functions/api/cron"));
    await symlink("../chat.func", path.join(output, "functions/api/cron/reconcile.func"));
    expect(failed((await inspectBuildOutput(output, project)).checks)).toEqual([]);
  });
});

describe("measureFunction", () => {
  it("counts each real file once, following symlinks, and a folder link in the filePathMap as the link", async () => {
    const func = path.join(project, "f.func");
    await write(path.join(func, "a.js"), "a".repeat(100));
    await symlink("a.js", path.join(func, "same-as-a.js"));
    await write(path.join(project, "shared/b.js"), "b".repeat(1000));
    await symlink("../shared", path.join(func, "linked"));
    await write(path.join(project, "node_modules/pkg/index.js"), "p".repeat(10));
    await write(path.join(project, "node_modules/pkg/unused.js"), "u".repeat(10_000));
    await mkdir(path.join(project, ".next/node_modules"), { recursive: true });
    await symlink("../../node_modules/pkg", path.join(project, ".next/node_modules/pkg-0123"));
    const size = await measureFunction(
      func,
      {
        "shared/b.js": "shared/b.js",
        "x/b.js": "shared/b.js",
        "node_modules/pkg/index.js": "node_modules/pkg/index.js",
        ".next/node_modules/pkg-0123": ".next/node_modules/pkg-0123",
      },
      project,
    );
    expect(size).toEqual({ bytes: 100 + 1000 + 10, files: 3, missing: [] });
  });

  it("reports a dangling link in the function folder as missing", async () => {
    const func = path.join(project, "f.func");
    await mkdir(func);
    await symlink("nowhere.js", path.join(func, "dangling.js"));
    expect(await measureFunction(func, {}, project)).toEqual({ bytes: 0, files: 0, missing: ["f.func/dangling.js"] });
  });
});

describe("formatReport", () => {
  it("aligns the checks and ends with the verdict", () => {
    const checks: Check[] = [
      { name: "/api/chat maxDuration", expected: "50", found: "50", ok: true },
      { name: "cron", expected: "/api/cron/reconcile", found: "absent", ok: false },
    ];
    expect(formatReport(checks).split("\n")).toEqual([
      "CHECK                  EXPECTED             FOUND",
      "/api/chat maxDuration  50                   50      ok",
      "cron                   /api/cron/reconcile  absent  FAILED",
      "",
      "1 check failed: cron.",
    ]);
    expect(formatReport(checks.slice(0, 1))).toMatch(/All checks passed\.$/);
  });
});
