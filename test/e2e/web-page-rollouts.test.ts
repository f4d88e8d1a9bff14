// The web page's Rollouts tab in headless Chromium over a real listening server: a phased rollout declared
// through the API, whose clusters reported one update completed and one failing, is drawn in its channel
// (its id and phase, the window as a band, the share offered rising to where it is now, a "now" marker, the
// clusters updated and failing, in numbers and as lines); the tab reads again every 15 s and then shows a
// halt with its reason (as text, never markup); a cancelled rollout is grey; a channel without rollouts
// says how to declare one (and its example declares one), and a rollouts API out of reach is an alert.
/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are read as JSON, checked field by field */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../src/settings.js';
import { CHART } from '../../src/ui/rolloutChart.js';
import { ROLLOUTS_REFRESH_MS } from '../../src/ui/rolloutsPanel.js';
import { chromiumAvailable, launchChromium, openWebPage } from '../support/browser.js';
import { updateReport } from '../support/clusterReports.js';
import { startServer, tempDir, type TestServer } from '../support/server.js';

const MIN = 60_000;
const CHANNEL = 'stable-4.16';
const TO = '4.16.22';
const iso = (ms: number): string => new Date(ms).toISOString();
const cluster = (n: number): string => `a11ce000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** A reason that would run a script if the page parsed it as HTML. */
const HOSTILE_REASON = '<img src=x onerror="window.__xss=1">support saw failures & more';

describe.runIf(chromiumAvailable('the web page rollouts tests'))('the web page rollouts tab', () => {
  let server: TestServer;
  let browser: Browser;
  const dir = tempDir();
  let writer = '';
  let rolloutId = '';

  const post = async (path: string, body: unknown, token = writer): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const rollout = async (id: string): Promise<any> => (await fetch(`${server.url}/api/v1/rollouts/${id}`)).json();

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    server = await startServer({
      graphData: BUNDLED_GRAPH_DATA,
      auth: { secretFile },
      fleet: { record: true, flushIntervalMs: 3_600_000 },
    });
    writer = await createToken({
      adminJwtSecretFile: secretFile,
      scope: 'rollouts:write',
      ttl: '1h',
      subject: 'web-admin',
    });
    // Half an hour into a two-hour window; halted by hand only (two clusters take it, one fails).
    const start = Date.now() - 30 * MIN;
    const declared = await post('/api/v1/rollouts', {
      channel: CHANNEL,
      to: TO,
      start: iso(start),
      duration: 'PT2H',
      haltAfter: { failures: 5, fraction: null },
      reason: 'the browser test',
    });
    expect(declared.status, JSON.stringify(declared.body)).toBe(201);
    rolloutId = declared.body.id;
    await server.service.caughtUp();

    // Two clusters of the channel on 4.16.20 take it: the first completes, the second fails.
    for (const n of [0, 1]) {
      const res = await fetch(`${server.url}/graph?channel=${CHANNEL}&arch=amd64&id=${cluster(n)}&version=4.16.20`);
      await res.arrayBuffer();
    }
    await server.recorder!.flush();
    for (const [n, failing] of [
      [0, false],
      [1, true],
    ] as const) {
      const token = await createToken({
        adminJwtSecretFile: secretFile,
        scope: 'fleet:report',
        clusterId: cluster(n),
        ttl: '1h',
      });
      const report = await post(
        '/api/v1/fleet/reports',
        updateReport({
          ...{ id: cluster(n), channel: CHANNEL, from: '4.16.20', to: TO, startedAt: start + 5 * MIN },
          ...(failing ? { completedAt: null, failingSince: start + 10 * MIN } : { completedAt: start + 25 * MIN }),
        }),
        token,
      );
      expect(report.status, JSON.stringify(report.body)).toBe(200);
    }
    await server.rollouts.check();
    const counted = await rollout(rolloutId);
    expect(counted).toMatchObject({
      phase: 'rolling',
      counts: { took: 2, completed: 1, failing: 1, silent: 0 },
    });
    expect(counted.share).toBeGreaterThan(0.2);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    dir.remove();
  });

  /** The page, with its script errors collected from then on. */
  const watched = (page: Page): string[] => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    return errors;
  };
  /** The points of an SVG polyline, as numbers. */
  const pointsOf = async (line: Locator): Promise<Array<[number, number]>> =>
    ((await line.getAttribute('points')) ?? '')
      .trim()
      .split(/\s+/)
      .map((p) => p.split(',').map(Number) as [number, number]);
  const number = async (el: Locator, attr: string): Promise<number> => Number(await el.getAttribute(attr));
  const card = (page: Page, phase?: string): Locator =>
    page.locator(`#rollouts-list [data-rollout="${rolloutId}"]${phase ? `[data-phase="${phase}"]` : ''}`);

  it('draws the channel’s rollout: its window, now, the share offered, and the clusters that took it', async () => {
    const page = await openWebPage(browser, server.url, `?channel=${CHANNEL}`);
    const errors = watched(page);
    await page.getByRole('tab', { name: 'Rollouts' }).click();
    expect(await page.locator('#tab-rollouts').getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).searchParams.get('tab')).toBe('rollouts');
    const drawn = card(page, 'rolling');
    await drawn.waitFor();
    expect(await page.locator('#panel-rollouts').textContent()).toContain('A phased rollout offers the updates');
    expect(await drawn.locator('.cy-rollout-id').textContent()).toBe(rolloutId);
    expect(await drawn.locator('.cy-rollout-title').textContent()).toBe(`Updates to ${TO}`);
    expect(await drawn.locator('.cy-rollout-phase').textContent()).toBe('rolling');

    // The window as a band, now inside it, the share offered rising from 0 at the start to the share now.
    const chart = drawn.locator('svg.cy-rollout-chart');
    expect(await chart.count()).toBe(1);
    expect(await chart.getAttribute('aria-label')).toContain(`${rolloutId}: window`);
    const band = chart.locator('rect.cy-window');
    const [x, width] = [await number(band, 'x'), await number(band, 'width')];
    expect(width).toBeGreaterThan(50);
    const now = await number(chart.locator('line.cy-now'), 'x1');
    expect(now).toBeGreaterThan(x);
    expect(now).toBeLessThan(x + width);
    const offered = await pointsOf(chart.locator('polyline.cy-offered'));
    expect(offered).toHaveLength(2);
    const bottom = CHART.offeredTop + CHART.laneHeight;
    expect(offered[0]).toEqual([x, bottom]);
    // Where the share the API gives now puts it (a second of a two-hour window is 0.05 units of the axis).
    const { share } = await rollout(rolloutId);
    expect(Math.abs(offered[1]![1] - (bottom - CHART.laneHeight * share))).toBeLessThan(1);
    expect(Math.abs(offered[1]![0] - (x + width * share))).toBeLessThan(2);
    expect(await chart.locator('.cy-offered-text').textContent()).toMatch(/^\d+% offered$/);

    // The clusters that took it, in numbers and as the first point of the updated and failing lines.
    expect(await drawn.locator('[data-count=took]').textContent()).toBe('2 took it');
    expect(await drawn.locator('[data-count=completed]').textContent()).toBe('1 updated');
    expect(await drawn.locator('[data-count=failing]').textContent()).toBe('1 failing (0 silent)');
    expect(await pointsOf(chart.locator('polyline.cy-updated'))).toHaveLength(1);
    expect(await pointsOf(chart.locator('polyline.cy-failing'))).toHaveLength(1);
    expect(await page.locator('#rollouts-lines').textContent()).toContain('start when this page was opened');

    // Home and End move along the tab list, the Rollouts tab last.
    await page.locator('#tab-rollouts').focus();
    await page.keyboard.press('Home');
    expect(await page.locator('#tab-version').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('End');
    expect(await page.locator('#tab-rollouts').getAttribute('aria-selected')).toBe('true');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('reads again every 15 s while the tab is open, and then shows a halt with its reason, as text', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watched(page);
    await page.clock.install();
    await page.goto(`${server.url}/?channel=${CHANNEL}&tab=rollouts`);
    await page.locator('body[data-ready]').waitFor({ state: 'attached' });
    await card(page, 'rolling').waitFor();

    const halted = await post(`/api/v1/rollouts/${rolloutId}/halt`, { reason: HOSTILE_REASON });
    expect(halted.status, JSON.stringify(halted.body)).toBe(200);
    await server.service.caughtUp();
    await server.rollouts.check(); // a second count, to draw as the lines' second point
    expect(await card(page, 'rolling').count()).toBe(1);
    await page.clock.runFor(ROLLOUTS_REFRESH_MS);

    const drawn = card(page, 'halted');
    await drawn.waitFor();
    expect(await drawn.locator('.cy-rollout-phase').textContent()).toBe('halted');
    expect(await drawn.locator('.cy-rollout-phase .pf-v6-c-label').getAttribute('class')).toContain('pf-m-red');
    const alerted = drawn.locator('[role=alert]');
    expect(await alerted.locator('.pf-v6-c-alert__title').textContent()).toMatch(/^Halted at \d{4}-\d\d-\d\d /);
    expect(await alerted.textContent()).toContain('An administrator halted it.');
    expect(await drawn.locator('.cy-rollout-reason').textContent()).toBe(HOSTILE_REASON);
    expect(await page.locator('#panel-rollouts img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    // The share is held from the halt on; the lines have the count read before and the one after.
    const chart = drawn.locator('svg.cy-rollout-chart');
    expect(await chart.locator('rect.cy-window-halted').count()).toBe(1);
    const held = await pointsOf(chart.locator('polyline.cy-held'));
    expect(held).toHaveLength(2);
    expect(held[0]![1]).toBe(held[1]![1]);
    expect(await pointsOf(chart.locator('polyline.cy-updated'))).toHaveLength(2);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('greys a cancelled rollout, with its reason', async () => {
    const cancelled = await post(`/api/v1/rollouts/${rolloutId}/cancel`, { reason: 'replaced by 4.16.23' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const page = await openWebPage(browser, server.url, `?channel=${CHANNEL}&tab=rollouts`);
    const drawn = card(page, 'cancelled');
    await drawn.waitFor();
    expect(await drawn.locator('.cy-rollout-phase .pf-v6-c-label').getAttribute('class')).toContain('pf-m-grey');
    expect(await drawn.locator('.cy-rollout-cancel').textContent()).toMatch(
      /^Cancelled at .*: replaced by 4\.16\.23\. These updates are served to no cluster until another rollout of 4\.16\.22/,
    );
    await page.close();
  });

  it('says how to declare one in a channel without rollouts, and when the rollouts cannot be read', async () => {
    const page = await openWebPage(browser, server.url, '?channel=stable-4.17&tab=rollouts');
    expect(await page.locator('#panel-rollouts').isVisible()).toBe(true);
    const empty = page.locator('#rollouts-empty');
    await empty.waitFor();
    const text = await empty.textContent();
    expect(text).toContain('No phased rollout in stable-4.17 yet.');
    expect(text).toContain('POST /api/v1/rollouts');
    expect(text).toContain('rollouts:write');
    // The example's body, with a release of the channel for `to`, declares one.
    const example = (await empty.locator('.cy-example').textContent())!;
    expect(example).toContain(`curl -X POST ${server.url}/api/v1/rollouts`);
    const body = JSON.parse(/-d '([^']*)'/.exec(example)![1]!);
    expect(body).toMatchObject({ channel: 'stable-4.17', duration: 'PT6H' });
    const declared = await post('/api/v1/rollouts', { ...body, to: '4.17.1' });
    expect(declared.status, JSON.stringify(declared.body)).toBe(201);
    await page.locator('#rollouts-refresh').click();
    await page.locator(`#rollouts-list [data-rollout="${declared.body.id}"]`).waitFor();

    await page.route('**/api/v1/rollouts*', (route) => route.abort());
    await page.locator('#rollouts-refresh').click();
    const failed = page.locator('#rollouts-result [role=alert]');
    await failed.waitFor();
    expect(await failed.textContent()).toContain('The rollouts could not be read');
    await page.close();
  });
});
