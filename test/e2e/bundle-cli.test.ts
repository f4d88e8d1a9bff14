// scripts/bundle-cli.mjs, which makes the command line bin/cincy.js runs: a bundled module still finds the
// files beside the place it was compiled to (package.json, migrations/, the web page, a worker's script), as it
// did unbundled, after the package is moved elsewhere; and what a command loads when it runs stays a chunk of
// its own. The real bundle is what every other e2e test runs.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleCli, keepCompiledPlace } from '../../scripts/bundle-cli.mjs';
import { tempDir } from '../support/server.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the command line bundle', () => {
  it("keeps each module's import.meta.url where it was compiled, wherever the package is moved", async () => {
    const dir = tempDir();
    try {
      const built = join(dir.path, 'built');
      mkdirSync(join(built, 'dist', 'deep'), { recursive: true });
      writeFileSync(join(built, 'dist', 'deep', 'beside.txt'), 'the file beside place.js');
      writeFileSync(
        join(built, 'dist', 'deep', 'place.js'),
        [
          "import { readFileSync } from 'node:fs';",
          'export const url = import.meta.url;',
          "export const beside = readFileSync(new URL('./beside.txt', import.meta.url), 'utf8');",
        ].join('\n'),
      );
      writeFileSync(
        join(built, 'dist', 'main.js'),
        "const place = await import('./deep/place.js');\nconsole.log(JSON.stringify({ ...place }));\n",
      );
      await bundleCli(join(built, 'dist', 'bundle'), { main: join(built, 'dist', 'main.js') });
      // The module loaded when it runs is a chunk of its own, not part of the entry.
      expect(readdirSync(join(built, 'dist', 'bundle')).filter((f) => f.endsWith('.js')).length).toBe(2);

      const moved = join(dir.path, 'installed', 'elsewhere');
      cpSync(built, moved, { recursive: true });
      const said = JSON.parse(
        execFileSync(process.execPath, [join(moved, 'dist', 'bundle', 'main.js')], { encoding: 'utf8' }),
      );
      expect(said).toEqual({
        url: pathToFileURL(join(moved, 'dist', 'deep', 'place.js')).href,
        beside: 'the file beside place.js',
      });
    } finally {
      dir.remove();
    }
  });

  it('rewrites every import.meta.url of a module, and refuses the rest of import.meta', () => {
    const text = 'const a = import.meta.url; const b = new URL("x", import.meta.url);';
    expect(keepCompiledPlace(text, '/p/dist/server/routes/ui.js', '/p/dist/bundle')).toBe(
      'const a = new URL("../server/routes/ui.js", import.meta.url).href; ' +
        'const b = new URL("x", new URL("../server/routes/ui.js", import.meta.url).href);',
    );
    const refused: Array<[string, string]> = [
      ['join(import.meta.dirname, "x")', 'import.meta.dirname'],
      ['import.meta.filename', 'import.meta.filename'],
      ["import.meta.resolve('./x.js')", 'import.meta.resolve'],
      ['const m = import.meta;', 'import.meta'],
      ['import.meta.urlish', 'import.meta.urlish'],
    ];
    for (const [use, named] of refused)
      expect(() => keepCompiledPlace(use, '/p/dist/a.js', '/p/dist/bundle'), use).toThrow(
        `/p/dist/a.js: ${named} cannot be kept in the bundle; use import.meta.url`,
      );
  });

  it('leaves the chunks of an earlier build for the processes started before it, and swaps the entry point', async () => {
    const dir = tempDir();
    try {
      const dist = join(dir.path, 'dist');
      mkdirSync(dist, { recursive: true });
      const write = (said: string): void => {
        writeFileSync(join(dist, 'said.js'), `export const said = '${said}';\n`);
        writeFileSync(join(dist, 'main.js'), "const { said } = await import('./said.js');\nconsole.log(said);\n");
      };
      const chunks = (): string[] =>
        readdirSync(join(dist, 'bundle')).filter((f) => f.startsWith('said-') && f.endsWith('.js'));
      write('first');
      await bundleCli(join(dist, 'bundle'), { main: join(dist, 'main.js') });
      const [first] = chunks();
      write('second');
      await bundleCli(join(dist, 'bundle'), { main: join(dist, 'main.js') });
      expect(chunks()).toHaveLength(2);
      expect(chunks()).toContain(first!);
      expect(execFileSync(process.execPath, [join(dist, 'bundle', 'main.js')], { encoding: 'utf8' })).toBe('second\n');
    } finally {
      dir.remove();
    }
  });

  it('bin/cincy.js runs the bundle, and the compiled files when tsc wrote dist/ after the bundle was made', () => {
    const dir = tempDir();
    try {
      mkdirSync(join(dir.path, 'bin'));
      cpSync(join(ROOT, 'bin', 'cincy.js'), join(dir.path, 'bin', 'cincy.js'));
      for (const place of ['bundle', 'cli']) {
        mkdirSync(join(dir.path, 'dist', place), { recursive: true });
        writeFileSync(join(dir.path, 'dist', place, 'program.js'), 'export const runAsProcess = (main) => main([]);\n');
        writeFileSync(
          join(dir.path, 'dist', place, 'main.js'),
          `export const main = async () => console.log('${place}');\n`,
        );
      }
      const ran = (): string =>
        execFileSync(process.execPath, [join(dir.path, 'bin', 'cincy.js')], { encoding: 'utf8' });
      expect(ran()).toBe('bundle\n'); // a package: no build record
      const record = join(dir.path, 'dist', '.tsbuildinfo');
      writeFileSync(record, '{}');
      const bundle = join(dir.path, 'dist', 'bundle', 'main.js');
      utimesSync(record, new Date(2026, 0, 1), new Date(2026, 0, 1));
      utimesSync(bundle, new Date(2026, 0, 2), new Date(2026, 0, 2));
      expect(ran()).toBe('bundle\n');
      utimesSync(record, new Date(2026, 0, 3), new Date(2026, 0, 3));
      expect(ran()).toBe('cli\n');
    } finally {
      dir.remove();
    }
  });
});
