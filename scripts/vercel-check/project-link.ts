/**
 * `vercel build` needs a linked project: `.vercel/project.json` with the project's settings.
 * Without settings it runs `vercel pull`, which needs an account and the network. This writes a
 * stand-in link with the settings a Next.js project gets by default, so the build runs offline,
 * and takes it away afterwards. A real link (from `vercel link` or `vercel pull`) is used as it is
 * and never overwritten.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

/** Marks the stand-in, so a run that was interrupted before removing it can replace it. */
const OFFLINE_PROJECT_ID = "prj_offline";

// The keys `vercel pull` writes; null means "the framework's default" (install, build and output
// come from vercel.json and the Next.js preset). nodeVersion gives way to `engines.node` in
// package.json when that is set, as it is here.
const OFFLINE_LINK = {
  projectId: OFFLINE_PROJECT_ID,
  orgId: "team_offline",
  settings: {
    framework: "nextjs",
    nodeVersion: "22.x",
    installCommand: null,
    buildCommand: null,
    devCommand: null,
    outputDirectory: null,
    rootDirectory: null,
    commandForIgnoringBuildStep: null,
  },
};

const linkSchema = z.object({ projectId: z.string(), settings: z.object({}).loose().optional() });

export type ProjectLink = { kind: "offline"; remove: () => Promise<void> } | { kind: "linked"; projectId: string } | { kind: "unusable"; reason: string };

export async function prepareProjectLink(projectDir: string): Promise<ProjectLink> {
  const file = path.join(projectDir, ".vercel", "project.json");
  const existing = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (existing !== null) {
    const parsed = linkSchema.safeParse(JSON.parse(existing));
    if (!parsed.success) return { kind: "unusable", reason: `${file} is not a project link; move it away to build offline` };
    if (parsed.data.projectId !== OFFLINE_PROJECT_ID) {
      if (!parsed.data.settings)
        return {
          kind: "unusable",
          reason: `${file} links project ${parsed.data.projectId} without its settings: run \`vercel pull\` (online), or move .vercel away to build with the defaults`,
        };
      return { kind: "linked", projectId: parsed.data.projectId };
    }
  }
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(OFFLINE_LINK, null, 2)}\n`);
  return { kind: "offline", remove: () => rm(file, { force: true }) };
}
