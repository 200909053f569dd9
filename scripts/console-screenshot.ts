/**
 * Takes the README's picture of the web console (docs/images/console.png): signs in to a running
 * `weft server` with an API key and photographs the executions page in Debian's Chromium
 * (playwright-core, as the console's browser tests do).
 *
 *   WEFT_CONSOLE_KEY=weft_... npx tsx scripts/console-screenshot.ts http://127.0.0.1:8080 [out.png] [page]
 *
 * `page` photographs another section instead, by its link in the navigation: `budgets` for
 * docs/images/console-budgets.png (a server whose workspace has budgets and some spend).
 */
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const [url = 'http://127.0.0.1:8080', out, section] = process.argv.slice(2);
const key = process.env['WEFT_CONSOLE_KEY'];
if (!key) throw new Error('set WEFT_CONSOLE_KEY to an API key of the server');
const target = out ?? fileURLToPath(new URL('../docs/images/console.png', import.meta.url));

const browser = await chromium.launch({
  executablePath: process.env['WEFT_CHROMIUM'] ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 720 } });
  await page.goto(`${url}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Executions' }).waitFor();
  if (section) {
    const name = section[0]!.toUpperCase() + section.slice(1);
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name }).waitFor();
  }
  await page.getByRole('row').nth(1).waitFor();
  await page.screenshot({ path: target });
  console.log(`wrote ${target}`);
} finally {
  await browser.close();
}
