// Swagger UI as a person uses it, in headless Chromium: authorize with a token, try a write, see it land.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/cli/token.js';
import { chromiumAvailable, launchChromium } from '../support/browser.js';
import { startServer, tempDir, type TestServer } from '../support/server.js';
import { writeTree } from '../support/trees.js';

describe.runIf(chromiumAvailable('the Swagger UI browser test'))('Swagger UI in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let token: string;
  const dir = tempDir();

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'swagger-ui-test-secret-0123456789abcdef\n');
    server = await startServer({ graphData: writeTree(join(dir.path, 'tree')), auth: { secretFile } });
    token = await createToken({
      adminJwtSecretFile: secretFile,
      scope: 'channels:write',
      ttl: '10m',
      subject: 'browser-user',
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    dir.remove();
  });

  it('documents the API, authorizes with a bearer token and executes a channel write', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) refused.push(m.text());
    });
    const res = await page.goto(`${server.url}/docs/`);
    // Framed by no page, sniffed by no browser, loading nothing from elsewhere.
    const headers = res!.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toMatch(/https:|upgrade-insecure-requests|frame-ancestors 'self'/);
    expect(headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' });
    await page.locator('.opblock-tag-section').first().waitFor();
    for (const tag of ['graph', 'releases', 'channels', 'internal channels', 'risks', 'audit']) {
      await expect(page.locator(`h3[data-tag="${tag}"]`).count()).resolves.toBe(1);
    }

    // Without authorizing, the write is refused.
    const op = page.locator('#operations-channels-put_api_v1_channels__name_');
    await op.locator('.opblock-summary-control').click();
    await op.locator('.try-out__btn').click();
    await op.locator('tr[data-param-name="name"] input').fill('candidate-4.2');
    await op.locator('textarea.body-param__text').fill(JSON.stringify({ versions: ['4.1.0', '4.1.1'] }));
    await op.locator('.execute').click();
    await expect(
      op.locator('.live-responses-table tbody .response-col_status').first().textContent({ timeout: 10_000 }),
    ).resolves.toContain('401');

    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.auth-container input').first().fill(token);
    await page.locator('.auth-btn-wrapper .modal-btn.authorize').click();
    await page.locator('.auth-btn-wrapper .btn-done').click();

    await op
      .locator('.btn-clear')
      .click()
      .catch(() => undefined);
    await op.locator('.execute').click();
    await expect(
      op.locator('.live-responses-table tbody .response-col_status').first().textContent({ timeout: 10_000 }),
    ).resolves.toContain('201');
    await page.screenshot({ path: join(dir.path, 'swagger.png'), fullPage: false });

    const stored = await server.store.read(async (tx) => ({
      channel: await tx.channels.get('public', 'candidate-4.2'),
      audit: await tx.audit.list({ limit: 1 }),
    }));
    expect(stored.channel!.versions).toEqual(['4.1.0', '4.1.1']);
    expect(stored.audit[0]).toMatchObject({ actor: 'browser-user', action: 'channel.create' });
    // Swagger UI ran whole under its policy: nothing it needs was refused.
    expect(refused).toEqual([]);
    await page.close();
  });
});
