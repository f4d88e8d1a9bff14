// The web page's Changes tab in headless Chromium over a real listening server: a risk added through
// the admin API shows at the top of the selected channel's timeline with its cause and actor, older
// changes a page at a time, another channel its own (empty) timeline, and the tab kept in the URL.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/history/change.js';
import { createToken } from '../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../src/settings.js';
import { chromiumAvailable, launchChromium, openWebPage } from '../support/browser.js';
import { startServer, tempDir, type TestServer } from '../support/server.js';

describe.runIf(chromiumAvailable('the web page changes tests'))('the web page changes tab', () => {
  let server: TestServer;
  let browser: Browser;
  const dir = tempDir();

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    server = await startServer({ graphData: BUNDLED_GRAPH_DATA, auth: { secretFile } });
    await server.history.idle();
    // 25 older changes of stable-4.16 (amd64), as history would hold them, to page through (within
    // the retention, which the next recording prunes to).
    const older: Change[] = Array.from({ length: 25 }, (_, i) => ({
      kind: 'release-added',
      at: new Date(Date.now() - 3_600_000 + i * 60_000).toISOString(),
      channel: 'stable-4.16',
      arch: 'amd64',
      version: `4.16.${100 + i}`,
      cause: 'release',
    }));
    await server.store.write((tx) => tx.history.add(older), { unserved: true });
    const token = await createToken({
      adminJwtSecretFile: secretFile,
      scope: 'risks:write',
      ttl: '1h',
      subject: 'web-admin',
    });
    const res = await fetch(`${server.url}/api/v1/risks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        to: '4.16.2',
        from: '4[.]16[.]1',
        url: 'https://issues.example/web',
        name: 'HistoryWebRisk',
        message: 'It breaks in the browser test.',
        matchingRules: [{ type: 'Always' }],
      }),
    });
    expect(res.status, await res.text()).toBe(201);
    await server.service.caughtUp();
    await server.history.idle();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    dir.remove();
  });

  const open = (query: string): Promise<Page> => openWebPage(browser, server.url, query);
  const items = (page: Page) => page.locator('#changes-timeline li');

  it('shows the channel’s changes newest first, with cause and actor, a page at a time', async () => {
    const page = await open('?channel=stable-4.16&tab=changes');
    await page.locator('#changes-timeline').waitFor();
    expect(await page.locator('#panel-changes').isVisible()).toBe(true);
    expect(await items(page).count()).toBe(20);
    const first = items(page).first();
    expect(await first.getAttribute('data-kind')).toBe('risk-declared');
    const text = await first.textContent();
    expect(text).toContain('risk declared');
    expect(text).toContain('HistoryWebRisk on 4.16.1 → 4.16.2');
    expect(text).toContain('cause: risk');
    expect(text).toContain('by web-admin');
    expect(await items(page).nth(1).textContent()).toContain('4.16.124');
    expect(await page.locator('#changes-previous').isDisabled()).toBe(true);

    await page.locator('#changes-next').click();
    await page.locator('#changes-page', { hasText: 'page 2' }).waitFor();
    expect(await items(page).count()).toBe(6);
    expect(await items(page).last().textContent()).toContain('4.16.100');
    expect(await page.locator('#changes-next').isDisabled()).toBe(true);
    await page.locator('#changes-previous').click();
    await page.locator('#changes-page', { hasText: 'page 1' }).waitFor();
    expect(await items(page).count()).toBe(20);
    await page.close();
  });

  it('is reached from the tab list, kept in the URL, and shows another channel its own timeline', async () => {
    const page = await open('?channel=stable-4.17');
    await page.locator('#tab-changes').click();
    expect(await page.locator('#tab-changes').getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).searchParams.get('tab')).toBe('changes');
    await page.locator('#changes-result', { hasText: 'Changes to stable-4.17 (amd64)' }).waitFor();
    const text = await page.locator('#changes-result').textContent();
    // The risk's edge is in stable-4.17 too when both ends are; the older changes are stable-4.16's alone.
    expect(text).not.toContain('4.16.124');
    await page.close();
  });
});
