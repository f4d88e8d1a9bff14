// The web page's Fleet tab in headless Chromium over a real listening server whose polls are recorded:
// a token refused, then one with fleet:read; the whole fleet in numbers, the channel's clusters by
// version (in version order), the exposure, the updates taken with what their clusters reported, and the
// channel's clusters a page at a time (what each reported told apart from what it polls with), stranded
// ones alone on request. Every number shown is checked against what the test's own polls and reports make it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../src/settings.js';
import { chromiumAvailable, launchChromium, openWebPage } from '../support/browser.js';
import { startServer, tempDir, type TestServer } from '../support/server.js';

const uuid = (n: number): string => `feedbeef-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

describe.runIf(chromiumAvailable('the web page fleet tests'))('the web page fleet tab', () => {
  let server: TestServer;
  let browser: Browser;
  const dir = tempDir();
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    server = await startServer({
      graphData: BUNDLED_GRAPH_DATA,
      auth: { secretFile },
      fleet: { record: true, flushIntervalMs: 3_600_000 },
    });
    const token = (scope: string): Promise<string> =>
      createToken({ adminJwtSecretFile: secretFile, scope, ttl: '1h', subject: 'fleet-viewer' });
    tokens.fleet = await token('fleet:read');
    tokens.other = await token('risks:write');
    // 45 clusters on 4.16.1 and 5 on a version stable-4.16 lacks; 3 on another channel.
    const poll = async (n: number, version: string, channel = 'stable-4.16'): Promise<void> => {
      const r = await fetch(`${server.url}/graph?channel=${channel}&arch=amd64&id=${uuid(n)}&version=${version}`);
      await r.arrayBuffer();
    };
    for (let n = 0; n < 45; n++) await poll(n, '4.16.1');
    for (let n = 45; n < 50; n++) await poll(n, '4.11.0');
    for (let n = 50; n < 53; n++) await poll(n, '4.17.1', 'stable-4.17');
    await poll(53, '4.16.20');
    await poll(54, '4.16.3');
    await server.recorder!.flush();
    // Cluster 0 reports its update from 4.16.0, completed in 42 minutes.
    const reportToken = await createToken({
      adminJwtSecretFile: secretFile,
      scope: 'fleet:report',
      clusterId: uuid(0),
      ttl: '1h',
    });
    const at = (minutes: number): string => new Date(Date.now() - (60 - minutes) * 60_000).toISOString();
    const reported = await fetch(`${server.url}/api/v1/fleet/reports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reportToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        clusterID: uuid(0),
        clusterVersion: {
          spec: { clusterID: uuid(0), channel: 'stable-4.16' },
          status: {
            desired: { version: '4.16.1' },
            history: [
              { state: 'Completed', version: '4.16.1', startedTime: at(10), completionTime: at(52) },
              { state: 'Completed', version: '4.16.0', startedTime: at(0), completionTime: at(5) },
            ],
          },
        },
        clusterOperators: [],
      }),
    });
    expect(reported.status, await reported.text()).toBe(200);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    dir.remove();
  });

  const open = (query: string): Promise<Page> => openWebPage(browser, server.url, query);
  const cells = (page: Page, table: string, column: number): Promise<string[]> =>
    page.locator(`#${table} tbody tr td:nth-child(${column})`).allTextContents();

  it('asks for a token, says when it is refused, and shows the fleet with one of fleet:read', async () => {
    const page = await open('?channel=stable-4.16&tab=fleet');
    await expect(page.locator('#fleet-result').textContent()).resolves.toContain('fleet:read');

    await page.locator('#fleet-form input[name=token]').fill(tokens.other!);
    await page.locator('#fleet-form button[type=submit]').click();
    await page.locator('#fleet-result [role=alert]').waitFor();
    await expect(page.locator('#fleet-result').textContent()).resolves.toMatch(/refused.*lacks scope fleet:read/s);

    await page.locator('#fleet-form input[name=token]').fill(tokens.fleet!);
    await page.locator('#fleet-form button[type=submit]').click();
    await page.locator('#fleet-summary').waitFor();
    const summary = await page.locator('#fleet-summary').textContent();
    expect(summary).toMatch(/Clusters\s*55/);
    expect(summary).toMatch(/Stranded\s*5/);
    // In version order (4.16.3 before 4.16.20); 4.11.0 is no release of the graph: recorded as one
    // name for every such version, after the releases.
    expect(await cells(page, 'fleet-versions', 1)).toEqual(['4.16.1', '4.16.3', '4.16.20', '(not served)']);
    expect(await cells(page, 'fleet-versions', 2)).toEqual(['45', '1', '1', '5']);
    expect((await cells(page, 'fleet-versions', 4)).at(-1)).toBe('stranded: version-not-in-channel');
    // Headers apart from each other, and the checkbox on the line of its label.
    const padding = await page
      .locator('#fleet-versions th')
      .first()
      .evaluate((th) => getComputedStyle(th).paddingLeft);
    expect(parseFloat(padding)).toBeGreaterThan(0);
    const [box, text] = await Promise.all([
      page.locator('#fleet-form input[name=stranded]').boundingBox(),
      page.locator('#fleet-form label.cy-check').boundingBox(),
    ]);
    expect(text!.height).toBeLessThan(2 * box!.height + 8);
    // The update cluster 0 reported: started and completed, with its duration.
    expect(await cells(page, 'fleet-updates', 1)).toEqual(['4.16.0']);
    expect(await cells(page, 'fleet-updates', 2)).toEqual(['4.16.1']);
    expect(await cells(page, 'fleet-updates', 4)).toEqual(['1']);
    expect(await cells(page, 'fleet-updates', 7)).toEqual(['42 min']);
    // Each risk shown in stable-4.16, with the clusters of the versions it is shown at (45 on 4.16.1, one
    // on 4.16.3 and one on 4.16.20).
    const exposure = await (
      await fetch(`${server.url}/graph?channel=stable-4.16`, { headers: { accept: 'application/json' } })
    ).json();
    const polled: Record<string, number> = { '4.16.1': 45, '4.16.3': 1, '4.16.20': 1 };
    const risks = new Map<string, Set<string>>();
    for (const c of exposure.conditionalEdges as Array<{
      edges: Array<{ from: string }>;
      risks: Array<{ name: string }>;
    }>)
      for (const e of c.edges)
        if (polled[e.from]) for (const r of c.risks) risks.set(r.name, (risks.get(r.name) ?? new Set()).add(e.from));
    const expected = new Map(
      [...risks].map(([name, at]) => [name, String([...at].reduce((n, v) => n + polled[v]!, 0))]),
    );
    const names = await cells(page, 'fleet-exposure', 1);
    const counts = await cells(page, 'fleet-exposure', 2);
    expect(new Map(names.map((n, k) => [n, counts[k]]))).toEqual(expected);
  });

  it('pages through the channel’s clusters, and shows the stranded ones alone on request', async () => {
    const page = await open('?channel=stable-4.16&tab=fleet');
    // The token typed in the first test is kept for the session only: a new page asks again.
    await page.locator('#fleet-form input[name=token]').fill(tokens.fleet!);
    await page.locator('#fleet-form button[type=submit]').click();
    const seen: string[] = [];
    for (let p = 1; p <= 3; p++) {
      await page.locator('#fleet-page', { hasText: `page ${p}` }).waitFor();
      seen.push(...(await cells(page, 'fleet-clusters', 1)));
      if (p < 3) await page.locator('#fleet-next').click();
    }
    expect(await page.locator('#fleet-next').isDisabled()).toBe(true);
    expect(seen).toEqual([...Array.from({ length: 50 }, (_, n) => uuid(n)), uuid(53), uuid(54)]);
    await page.locator('#fleet-previous').click();
    await page.locator('#fleet-page', { hasText: 'page 2' }).waitFor();
    await page.locator('#fleet-previous').click();
    await page.locator('#fleet-page', { hasText: 'page 1' }).waitFor();
    // What cluster 0 reported, told apart from the clusters that only poll.
    const reported = await cells(page, 'fleet-clusters', 5);
    expect(reported[0]).toBe('4.16.1 4.16.0 → 4.16.1: completed');
    expect(new Set(reported.slice(1))).toEqual(new Set(['polls only']));

    await page.locator('#fleet-form input[name=stranded]').check();
    await page.locator('#fleet-form button[type=submit]').click();
    await page.locator('#fleet-page', { hasText: 'page 1' }).waitFor();
    await expect(cells(page, 'fleet-clusters', 1)).resolves.toEqual(Array.from({ length: 5 }, (_, i) => uuid(45 + i)));
    await expect(cells(page, 'fleet-clusters', 4)).resolves.toEqual(Array(5).fill('version-not-in-channel'));
  });
});
