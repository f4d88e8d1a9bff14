// The web page as an administrator uses it, in headless Chromium over a real listening server: load,
// switch channel, select a version (mouse-free), plan a path, explain a missing edge, open a shared
// link, and the VersionNotFound help. What the page shows is checked against the API's own answers,
// and what the graph canvas draws is checked by counting the edge colours in a screenshot.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../src/graph/view.js';
import { BUNDLED_GRAPH_DATA } from '../../src/config.js';
import { chromiumAvailable, launchChromium, openWebPage } from '../support/browser.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../support/conformance.js';
import { startServer, type TestServer } from '../support/server.js';

const SHOTS = join(tmpdir(), 'cincy-web-page');

describe.runIf(chromiumAvailable('the web page browser tests'))('the web page', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer({ graphData: BUNDLED_GRAPH_DATA });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const api = async <T>(path: string): Promise<T> => {
    const r = await fetch(`${server.url}${path}`, { headers: { accept: 'application/json' } });
    expect(r.status, path).toBe(200);
    return (await r.json()) as T;
  };
  const graphOf = (channel: string) => api<GraphDocument>(`/api/upgrades_info/v1/graph?channel=${channel}`);

  const open = (query = ''): Promise<Page> => openWebPage(browser, server.url, query);

  it('serves the page and its assets from the server itself, with a strict content policy', async () => {
    const r = await fetch(`${server.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await r.text();
    const assets = [...html.matchAll(/\/ui\/assets\/[^"]+/g)].map((m) => m[0]);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const a = await fetch(`${server.url}${asset}`, { headers: { 'accept-encoding': 'br' } });
      expect(a.status).toBe(200);
      expect(a.headers.get('cache-control')).toContain('immutable');
      expect(a.headers.get('content-encoding')).toBe('br');
      expect(a.headers.get('vary')).toContain('Accept-Encoding');
    }
    expect((await fetch(`${server.url}/ui/`)).status).toBe(200);
  });

  it('loads on the newest stable channel and switches channel from the picker', async () => {
    const catalog = await api<{ channels: Array<{ name: string; releases: Record<string, number> }> }>(
      '/api/v1/catalog',
    );
    const stable = catalog.channels.filter((c) => c.name.startsWith('stable-') && (c.releases.amd64 ?? 0) > 0);
    const page = await open();
    const opened = stable.at(-1)!.name;
    await expect(page.locator('#channel').inputValue()).resolves.toBe(opened);
    const doc = await graphOf(opened);
    await expect(page.locator('#status').textContent()).resolves.toContain(`${doc.nodes.length} versions`);

    const other = catalog.channels.find((c) => c.name.startsWith('candidate-') && (c.releases.amd64 ?? 0) > 20)!;
    await page.locator('#channel').selectOption(other.name);
    const otherDoc = await graphOf(other.name);
    await page
      .locator('#status')
      .filter({ hasText: `${other.name} · amd64 · ${otherDoc.nodes.length} versions` })
      .waitFor();
    expect(new URL(page.url()).searchParams.get('channel')).toBe(other.name);
    await page.screenshot({ path: join(SHOTS, '1-channel.png') });
    await page.close();
  });

  it('draws the channel asked last when an earlier answer arrives late', async () => {
    const page = await open('?channel=stable-4.16');
    const slow = 'stable-4.12';
    const fast = 'stable-4.13';
    await page.route(`**/graph?channel=${slow}*`, async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await page.locator('#channel').selectOption(slow);
    await page.locator('#channel').selectOption(fast);
    const doc = await graphOf(fast);
    await page
      .locator('#status')
      .filter({ hasText: `${fast} · amd64 · ${doc.nodes.length} versions` })
      .waitFor();
    await page.waitForTimeout(2000); // the slow answer has come and must have been dropped
    await expect(page.locator('#status').textContent()).resolves.toContain(
      `${fast} · amd64 · ${doc.nodes.length} versions`,
    );
    const listed = await page
      .locator('#versions option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(listed.sort()).toEqual(doc.nodes.map((n) => n.version).sort());
    await page.close();
  });

  it('takes a mistyped channel in the address for the closest one, and says so', async () => {
    const page = await open('?channel=stabel-4.16');
    const doc = await graphOf('stable-4.16');
    await page
      .locator('#status')
      .filter({ hasText: `stable-4.16 · amd64 · ${doc.nodes.length} versions` })
      .waitFor();
    await expect(page.locator('#status').textContent()).resolves.toContain(
      'there is no channel stabel-4.16: did you mean stable-4.16? Showing it',
    );
    await page.close();
  });

  it('selects a version with the keyboard and shows its details and updates as the API gives them', async () => {
    const channel = 'candidate-4.16';
    const doc = await graphOf(channel);
    const page = await open(`?channel=${channel}`);
    await page.locator('#graph').focus();
    await page.keyboard.press('ArrowRight'); // selects the first version of the newest minor
    await page.keyboard.press('ArrowDown'); // the same position one minor down
    await page.keyboard.press('ArrowRight');
    const version = new URL(page.url()).searchParams.get('version')!;
    expect(version).toMatch(/^4\.15\./);
    await page.locator('#panel-version h2', { hasText: version }).waitFor();

    const detail = await api<{ channels: Array<{ name: string; kind: string }> }>(`/api/v1/releases/amd64/${version}`);
    const labels = await page
      .locator('#panel-version .pf-v6-c-description-list__group', { hasText: 'Channels' })
      .locator('.pf-v6-c-label')
      .allTextContents();
    expect(labels).toEqual(detail.channels.filter((c) => c.kind === 'public').map((c) => c.name));
    const index = doc.nodes.findIndex((n) => n.version === version);
    const recommended = doc.edges.filter(([f]) => f === index).length;
    const conditional = doc.conditionalEdges.flatMap((g) => g.edges).filter((e) => e.from === version).length;
    await expect(page.locator('#panel-version h3').allTextContents()).resolves.toEqual([
      `Recommended updates (${recommended})`,
      `Conditional updates (${conditional})`,
    ]);
    expect(recommended + conditional).toBeGreaterThan(0);
    await expect(page.locator('#announce').textContent()).resolves.toBe(
      `${version} selected: ${recommended} recommended and ${conditional} conditional updates`,
    );

    // The canvas draws the selected version's edges in the edge colours, and all of them on demand.
    const shown = await edgePixels(page);
    expect(shown.recommended + shown.conditional).toBeGreaterThan(200);
    await page.locator('label[for="all-edges"]').click();
    const all = await edgePixels(page);
    expect(all.recommended).toBeGreaterThan(shown.recommended);
    expect(new URL(page.url()).searchParams.get('edges')).toBe('all');
    await page.screenshot({ path: join(SHOTS, '2-version.png') });
    await page.close();
  });

  it('plans a path, draws it, and a shared link opens the same plan', async () => {
    const doc = await graphOf('stable-4.16');
    const from = doc.nodes.find((n) => n.version.startsWith('4.15.'))!.version;
    const to = doc.nodes.at(-1)!.version;
    const answer = await api<{ paths: Array<{ hops: unknown[] }> }>(`/api/v1/paths?from=${from}&to=${to}`);
    expect(answer.paths.length).toBeGreaterThan(0);

    const page = await open('?channel=stable-4.16');
    await page.getByRole('tab', { name: 'Plan a path' }).click();
    await page.locator('#path-form input[name="from"]').fill(from);
    await page.locator('#path-form input[name="to"]').fill(to);
    await page.locator('#path-form button[type="submit"]').click();
    await page.locator('.cy-path-card').first().waitFor();
    await expect(page.locator('.cy-path-card').count()).resolves.toBe(answer.paths.length);
    await expect(page.locator('.cy-path-card').first().locator('ol > li').count()).resolves.toBe(
      answer.paths[0]!.hops.length,
    );
    expect((await edgePixels(page)).path).toBeGreaterThan(50);
    await page.screenshot({ path: join(SHOTS, '3-path.png') });

    const shared = await open(new URL(page.url()).search);
    await shared.locator('.cy-path-card[aria-current="true"]').waitFor();
    await expect(shared.getByRole('tab', { name: 'Plan a path' }).getAttribute('aria-selected')).resolves.toBe('true');
    await shared.close();
    await page.close();
  });

  it('explains a missing edge with the answer of the explain API', async () => {
    const doc = await graphOf('stable-4.16');
    const [newer, older] = [doc.nodes.at(-1)!.version, doc.nodes.at(-2)!.version];
    const answer = await api<{ edge: boolean; message: string }>(
      `/api/v1/explain?from=${newer}&to=${older}&channel=stable-4.16`,
    );
    expect(answer.edge).toBe(false);
    const page = await open('?channel=stable-4.16&tab=explain');
    await page.locator('#explain-form input[name="from"]').fill(newer);
    await page.locator('#explain-form input[name="to"]').fill(older);
    await page.locator('#explain-form input[name="to"]').press('Enter');
    const result = page.locator('#explain-result .pf-v6-c-alert');
    await result.waitFor();
    await expect(result.locator('.pf-v6-c-alert__title').textContent()).resolves.toBe(
      `${newer} → ${older}: no edge in stable-4.16`,
    );
    await expect(result.textContent()).resolves.toContain(answer.message);
    await page.screenshot({ path: join(SHOTS, '4-explain.png') });
    await page.close();
  });

  it('says which channels have a version the chosen channel lacks', async () => {
    const doc = await graphOf('stable-4.16');
    const inStable = new Set(doc.nodes.map((n) => n.version));
    const candidate = await graphOf('candidate-4.16');
    const missing = candidate.nodes.find((n) => !inStable.has(n.version))!.version;
    const detail = await api<{ channels: Array<{ name: string; kind: string }> }>(`/api/v1/releases/amd64/${missing}`);
    const page = await open(`?channel=stable-4.16&version=${missing}`);
    const warning = page.locator('#panel-version .pf-v6-c-alert.pf-m-warning');
    await expect(warning.locator('.pf-v6-c-alert__title').textContent()).resolves.toBe(
      `${missing} is not in stable-4.16`,
    );
    const offered = await warning.locator('button').allTextContents();
    expect(offered).toEqual(detail.channels.filter((c) => c.kind === 'public').map((c) => c.name));
    await warning.locator('button', { hasText: 'candidate-4.16' }).click();
    await page.locator('#panel-version h3').first().waitFor();
    expect(new URL(page.url()).searchParams.get('channel')).toBe('candidate-4.16');
    await page.close();
  });
});

describe.runIf(chromiumAvailable('the web page browser tests') && conformanceAvailable())(
  'the web page on the largest real channel',
  () => {
    let server: TestServer;
    let browser: Browser;
    beforeAll(async () => {
      server = await startServer({ graphData: join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data') });
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    it('draws every edge of eus-4.12 on demand', async () => {
      const r = await fetch(`${server.url}/api/upgrades_info/v1/graph?channel=eus-4.12`, {
        headers: { accept: 'application/json' },
      });
      const doc = (await r.json()) as GraphDocument;
      const edges = doc.edges.length + doc.conditionalEdges.reduce((n, g) => n + g.edges.length, 0);
      expect(edges).toBeGreaterThan(8000);
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${server.url}/?channel=eus-4.12&edges=all`);
      await page.locator('body[data-ready]').waitFor({ state: 'attached' });
      await expect(page.locator('#status').textContent()).resolves.toContain(
        `${doc.nodes.length} versions · ${edges} edges`,
      );
      const drawn = await edgePixels(page);
      expect(drawn.recommended).toBeGreaterThan(1000);
      expect(drawn.conditional).toBeGreaterThan(1000);
      await page.screenshot({ path: join(SHOTS, '5-largest-all-edges.png') });
      await page.close();
    });
  },
);

/** Pixels of the graph canvas in each edge colour, read from a screenshot decoded in the page. */
async function edgePixels(page: Page): Promise<{ recommended: number; conditional: number; path: number }> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const png = (await page.locator('#graph').screenshot()).toString('base64');
  return page.evaluate(async (data) => {
    const img = new Image();
    img.src = `data:image/png;base64,${data}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, img.width, img.height).data;
    const near = (i: number, rgb: number[]) =>
      Math.abs(px[i]! - rgb[0]!) + Math.abs(px[i + 1]! - rgb[1]!) + Math.abs(px[i + 2]! - rgb[2]!) < 60;
    const counts = { recommended: 0, conditional: 0, path: 0 };
    for (let i = 0; i < px.length; i += 4) {
      if (near(i, [0x00, 0x66, 0xcc])) counts.recommended++;
      else if (near(i, [0xdc, 0xa6, 0x14])) counts.conditional++;
      else if (near(i, [0x3d, 0x73, 0x17])) counts.path++;
    }
    return counts;
  }, png);
}
