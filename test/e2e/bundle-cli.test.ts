// scripts/bundle-cli.mjs, which makes the command line bin/cincy.js runs: a bundled module still finds the
// files beside the place it was compiled to (package.json, migrations/, the web page, a worker's script), as it
// did unbundled, after the package is moved elsewhere; and what a command loads when it runs stays a chunk of
// its own. The real bundle is what every other e2e test runs.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleCli, keepCompiledPlace } from '../../scripts/bundle-cli.mjs';
import { tempDir } from '../support/server.js';

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

  it('rewrites every import.meta.url of a module and nothing else, and refuses import.meta.dirname', () => {
    const text = 'const a = import.meta.url; const b = new URL("x", import.meta.url); const c = "import.meta";';
    expect(keepCompiledPlace(text, '/p/dist/server/routes/ui.js', '/p/dist/bundle')).toBe(
      'const a = new URL("../server/routes/ui.js", import.meta.url).href; ' +
        'const b = new URL("x", new URL("../server/routes/ui.js", import.meta.url).href); const c = "import.meta";',
    );
    expect(() => keepCompiledPlace('join(import.meta.dirname, "x")', '/p/dist/a.js', '/p/dist/bundle')).toThrow(
      '/p/dist/a.js: import.meta.dirname cannot be kept in the bundle; use import.meta.url',
    );
  });
});
