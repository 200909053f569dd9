import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium (`apt-get install -y chromium`; `.ci/run` installs it). */
export const CHROMIUM = process.env['WEFT_CHROMIUM'] ?? '/usr/bin/chromium';
/** Outside CI the browser tests skip, saying why; in CI a missing Chromium fails them. */
export const skipBrowser = !existsSync(CHROMIUM) && !process.env['CI'];
/** Screenshots of the pages, written for review (not compared). */
export const SHOTS = fileURLToPath(new URL('../screenshots/', import.meta.url));

/** `title`, or with why it is skipped (also printed) when there is no Chromium outside CI. */
export function browserSuite(title: string): string {
  if (!skipBrowser) return title;
  const skipped = `${title} (skipped: no Chromium at ${CHROMIUM}; apt-get install -y chromium, or set WEFT_CHROMIUM)`;
  console.warn(`console browser tests: ${skipped}`);
  return skipped;
}

/** `expect.poll` with room for a loaded machine (its default gives up after 1 s). */
export const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000 });

/** Chromium, headless, without background traffic; the screenshot folder made. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
  });
}

/**
 * The console errors and uncaught exceptions of a test's pages: tabs opened with
 * {@link newPage} report to it; a test lists those it expects (a refused sign-in logs its 401)
 * in {@link expected}, and {@link unexpected} (in `afterEach`) gives the others and starts over.
 */
export class PageProblems {
  private seen: string[] = [];
  expected: RegExp[] = [];

  /** A fresh tab (its own session storage) whose problems are recorded. */
  async newPage(browser: Browser): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') this.seen.push(message.text());
    });
    page.on('pageerror', (error) => this.seen.push(`uncaught: ${error.message}`));
    return page;
  }

  unexpected(): string[] {
    const left = this.seen.filter((text) => !this.expected.some((pattern) => pattern.test(text)));
    this.seen = [];
    this.expected = [];
    return left;
  }
}
