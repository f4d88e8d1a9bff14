// What the published package and the container image hold: the product, never the simulated cluster
// (simulator/, a workspace of the repository that only a clone has). `npm pack --dry-run` lists the files a
// publish would ship; the Dockerfile is read for what it copies and builds.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLES } from '../../scripts/bundle-dependencies.mjs';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the product without its simulator', () => {
  it('npm pack ships no file of the simulator, and the built product names none of its modules', () => {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const paths = packed!.files.map((f) => f.path);
    expect(paths).toContain('bin/cincy.js');
    expect(paths.some((p) => p.startsWith('dist/cli/'))).toBe(true);
    // The command line bin/cincy.js runs (scripts/bundle-cli.mjs).
    expect(paths).toEqual(expect.arrayContaining(['dist/bundle/main.js', 'dist/bundle/program.js']));
    expect(paths.filter((p) => p.endsWith('.tsbuildinfo'))).toEqual([]); // the compiler's record of the build
    // The packages dist/ imports bundled (package.json "imports"), each with the licences of what it holds.
    for (const file of Object.keys(BUNDLES))
      expect(paths).toEqual(
        expect.arrayContaining([`dist/vendor/${file}`, `dist/vendor/${file.replace(/\.js$/, '.licenses.txt')}`]),
      );
    expect(
      paths.filter((p) => p.startsWith('simulator/') || p.includes('/mock') || p.includes('cluster/mock')),
    ).toEqual([]);
    for (const path of paths.filter((p) => p.startsWith('dist/') && p.endsWith('.js')))
      expect(readFileSync(join(ROOT, path), 'utf8'), path).not.toMatch(
        /from ['"](@cincy\/simulator|\.\.?\/.*simulator\/)/,
      );
  });

  it('the container image copies and builds the product only', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'));
    expect(dockerfile.filter((l) => /simulator/.test(l))).toEqual([]);
    expect(dockerfile.some((l) => /^RUN npm run build:product\b/.test(l))).toBe(true);
  });
});
