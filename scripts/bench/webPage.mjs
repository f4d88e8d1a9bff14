// The web page part of the bench: `cincy serve` on the real conformance set, and the largest channel of
// amd64 (most edges) opened in headless Debian Chromium (WebGL by SwiftShader where there is no GPU),
// each load in a fresh browser context so nothing is cached. It reports the time from navigation to
// the first frame with the channel drawn (the page's `cincy:graph-drawn` mark), as the page opens it
// (the selected version's edges) and with every edge drawn, and the time to select another version.
/* global document, KeyboardEvent, requestAnimationFrame -- used in code page.evaluate runs in the browser */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, get, waitReady } from './http.mjs';
import { start, stop } from './procs.mjs';
import { atMost, percentile } from './report.mjs';

export const WEB_PAGE_TARGETS = { firstDraw: atMost(1000, 'ms') };
const CHROMIUM = '/usr/bin/chromium';
const LOADS = 7;
const M = {
  first: 'web page: navigation → largest channel drawn, p50',
  firstMax: 'web page: navigation → largest channel drawn, max',
  all: 'web page: navigation → largest channel drawn with all edges, p50',
  select: 'web page: select another version → drawn, p50',
};

export async function benchWebPage(report, { cli, realSet, workDir, log }) {
  const input = 'real set, largest channel';
  if (!existsSync(CHROMIUM) || !existsSync(realSet)) {
    const why = !existsSync(CHROMIUM) ? 'chromium is not installed (apt-get install chromium)' : `no ${realSet}`;
    report.notRun(Object.values(M), input, why, { [M.first]: WEB_PAGE_TARGETS.firstDraw });
    return;
  }
  const { chromium } = await import('playwright-core');
  const port = await freePort();
  const args = ['serve', '--db', join(workDir, 'web-page.db'), '--port', String(port), '--log-level', 'warn'];
  const server = start('cincy serve (web page)', process.execPath, [
    cli,
    ...args,
    '--graph-data',
    join(realSet, 'graph-data'),
  ]);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--no-first-run'] });
  try {
    await waitReady(server, port, performance.now());
    const catalog = JSON.parse((await get(port, '/api/v1/catalog')).body.toString());
    let largest = { name: '', edges: -1, nodes: 0 };
    for (const c of catalog.channels.filter((ch) => (ch.releases.amd64 ?? 0) > 0)) {
      const res = await get(port, `/api/upgrades_info/v1/graph?channel=${c.name}`, {
        headers: { accept: 'application/json' },
      });
      const doc = JSON.parse(res.body.toString());
      const edges = doc.edges.length + doc.conditionalEdges.reduce((n, g) => n + g.edges.length, 0);
      if (edges > largest.edges) largest = { name: c.name, edges, nodes: doc.nodes.length };
    }
    const label = `${input}: ${largest.name}, ${largest.nodes} versions, ${largest.edges} edges`;
    log(`[web page] ${label}: ${LOADS} loads each way`);
    const base = `http://127.0.0.1:${port}/?channel=${largest.name}`;
    const first = [];
    const all = [];
    const select = [];
    for (let i = 0; i < LOADS; i++) {
      first.push(await drawnAt(browser, base, select));
      all.push(await drawnAt(browser, `${base}&edges=all`));
    }
    report.add(M.first, label, percentile(first, 50), { unit: 'ms', digits: 0, target: WEB_PAGE_TARGETS.firstDraw });
    report.add(M.firstMax, label, Math.max(...first), { unit: 'ms', digits: 0 });
    report.add(M.all, label, percentile(all, 50), { unit: 'ms', digits: 0 });
    report.add(M.select, label, percentile(select, 50), { unit: 'ms', digits: 0 });
  } catch (err) {
    report.fail('web page', err);
  } finally {
    await browser.close();
    await stop(server);
  }
}

/** One cold load: ms from navigation start to the page's first frame with the channel drawn. */
async function drawnAt(browser, url, selectTimes) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('body[data-drawn]').waitFor({ state: 'attached', timeout: 30_000 });
  const ms = await page.evaluate(() => performance.getEntriesByName('cincy:graph-drawn')[0].startTime);
  if (selectTimes) {
    await page.locator('body[data-ready]').waitFor({ state: 'attached' });
    await page.locator('#graph').focus();
    // Selecting a version redraws its edges; the frame after the click's handler is the one measured.
    selectTimes.push(
      await page.evaluate(
        () =>
          new Promise((resolve) => {
            const t0 = performance.now();
            document
              .getElementById('graph')
              .dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
            requestAnimationFrame(() => resolve(performance.now() - t0));
          }),
      ),
    );
  }
  await context.close();
  return ms;
}
