// Headless Debian Chromium for the browser tests, driven by playwright-core. Locally a missing
// /usr/bin/chromium skips those tests loudly; under CI=true it fails them (.ci/run installs it).
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function chromiumAvailable(what: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing (CI=true: nothing may skip; .ci/run installs the chromium package)`);
  console.warn(`\n*** SKIPPING ${what}: ${CHROMIUM} not found (apt-get install chromium) ***\n`);
  return false;
}

/** WebGL stays on (software-rendered by SwiftShader where there is no GPU): the web page draws with it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Opens the web page of the server at `url` with `query`, waits until it says it is ready, and checks
 * that no script error was raised on the way.
 */
export async function openWebPage(browser: Browser, url: string, query = ''): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/${query}`);
  await page.locator('body[data-ready]').waitFor({ state: 'attached' });
  if (errors.length) throw new Error(`the page raised: ${errors.join('; ')}`);
  return page;
}
