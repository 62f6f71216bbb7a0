/**
 * 5. First-load JavaScript of the chat page: fetch `/` from the running production server,
 * collect its `<script src>`, fetch each and gzip it with zlib (level 9, as the usual
 * "gzipped size" tools do). `nomodule` scripts are legacy-browser polyfills that modern
 * browsers skip: they are listed but not counted.
 */
import { gzipSync } from "node:zlib";

export type ScriptWeight = { src: string; rawBytes: number; gzipBytes: number; noModule: boolean };
export type PageWeight = { htmlGzipBytes: number; scripts: ScriptWeight[]; totalGzipBytes: number; totalRawBytes: number };

export function scriptSources(html: string): { src: string; noModule: boolean }[] {
  const found = new Map<string, boolean>();
  for (const match of html.matchAll(/<script\b([^>]*)>/gi)) {
    const attributes = match[1] ?? "";
    const src = /\ssrc=(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attributes);
    const value = src?.[1] ?? src?.[2] ?? src?.[3];
    if (!value) continue;
    found.set(value.replaceAll("&amp;", "&"), /\snomodule\b/i.test(attributes));
  }
  return [...found].map(([src, noModule]) => ({ src, noModule }));
}

export async function measurePageWeight(baseUrl: string): Promise<PageWeight> {
  const response = await fetch(`${baseUrl}/`, { headers: { accept: "text/html" } });
  if (!response.ok) throw new Error(`GET / answered ${response.status}`);
  const html = await response.text();
  const scripts: ScriptWeight[] = [];
  for (const { src, noModule } of scriptSources(html)) {
    const file = await fetch(new URL(src, `${baseUrl}/`));
    if (!file.ok) throw new Error(`GET ${src} answered ${file.status}`);
    const bytes = Buffer.from(await file.arrayBuffer());
    scripts.push({ src, noModule, rawBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length });
  }
  const counted = scripts.filter((script) => !script.noModule);
  return {
    htmlGzipBytes: gzipSync(Buffer.from(html), { level: 9 }).length,
    scripts: scripts.sort((a, b) => b.gzipBytes - a.gzipBytes),
    totalGzipBytes: counted.reduce((sum, script) => sum + script.gzipBytes, 0),
    totalRawBytes: counted.reduce((sum, script) => sum + script.rawBytes, 0),
  };
}
