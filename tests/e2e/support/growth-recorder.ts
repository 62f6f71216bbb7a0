import type { Page } from "playwright-core";

export type GrowthSample = { length: number; running: boolean };

/**
 * Records, on every DOM change, the length of the newest assistant message's text and whether
 * a request is still running (the Stop button is shown). Proves text appears progressively
 * without depending on how often the test polls.
 */
export async function startGrowthRecorder(page: Page): Promise<void> {
  await page.evaluate(() => {
    const samples: { length: number; running: boolean }[] = [];
    (window as unknown as { __growth: typeof samples }).__growth = samples;
    const record = () => {
      const messages = document.querySelectorAll('[data-testid="assistant-message"]');
      const last = messages[messages.length - 1];
      const text = last
        ? Array.from(last.querySelectorAll('[data-testid="assistant-text"]'))
            .map((node) => node.textContent ?? "")
            .join("")
        : "";
      const sample = { length: text.length, running: document.querySelector('[data-testid="stop-button"]') !== null };
      const previous = samples[samples.length - 1];
      if (!previous || previous.length !== sample.length || previous.running !== sample.running) samples.push(sample);
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

export function growthSamples(page: Page): Promise<GrowthSample[]> {
  return page.evaluate(() => (window as unknown as { __growth: { length: number; running: boolean }[] }).__growth);
}
