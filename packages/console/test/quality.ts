import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { SHOTS } from './browser.js';

/**
 * axe-core's source. The tests run it in the page over the DevTools protocol (`page.evaluate`),
 * which the page's CSP does not govern: the console's own CSP stays as strict as it is served.
 */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/** What the tests read in the page (test files are type-checked without the DOM's types). */
interface InPage {
  axe: { run(): Promise<AxeResult> };
  document: { querySelectorAll(selector: string): { length: number } };
}

/**
 * The checks every console page passes, as it is shown now: axe-core finds no serious or
 * critical violation, and no inline script sits beside the bundle; then a screenshot of it
 * (`screenshots/<name>.png`) for review.
 */
export async function checked(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => (globalThis as unknown as InPage).axe.run());
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  expect(bad, `axe on ${name}`).toEqual([]);
  const inline = await page.evaluate(
    () => (globalThis as unknown as InPage).document.querySelectorAll('script:not([src])').length,
  );
  expect(inline, `inline scripts on ${name}`).toBe(0);
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}
