// Headless Debian Chromium for the browser tests, driven by playwright-core. Locally a missing
// /usr/bin/chromium skips those tests loudly; under CI=true it fails them (.ci/run installs it).
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
