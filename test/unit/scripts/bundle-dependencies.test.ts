// What the product imports through package.json's "imports" is what the build bundles for it: a name
// imported but not bundled would type-check (the types come from the package) and fail only when loaded.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLES } from '../../../scripts/bundle-dependencies.mjs';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  imports: Record<string, { source: string; default: string }>;
};

/** Every `import … from '#name'` of src/, as [file, specifier, imported names]. */
function hashImports(): Array<[string, string, string[]]> {
  const found: Array<[string, string, string[]]> = [];
  for (const entry of readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    const named = [...text.matchAll(/^import (type )?([^;]*?) from '(#[^']+)';$/gm)];
    // Every other use of a `#` specifier (export … from, import(), a default or namespace import) would escape
    // this check: only named imports are allowed.
    const uses = text.match(/(\bfrom\s*|\bimport\s*\(\s*)['"]#[^'"]+['"]/g) ?? [];
    expect(uses.length, `${file}: import from '#…' only as \`import { … } from\``).toBe(named.length);
    for (const m of named) {
      // Types are erased when compiled: only the values imported must be in the bundle.
      if (m[1]) continue;
      const names = /^\{([^}]*)\}$/.exec(m[2]!.trim());
      const list = names?.[1]!
        .split(',')
        .flatMap((n) => (/^\s*type\s/.test(n) ? [] : [n.trim().split(/\s+as\s+/)[0]!])) ?? [m[2]!];
      found.push([file, m[3]!, list.filter(Boolean)]);
    }
  }
  return found;
}

describe('the bundled dependencies', () => {
  it('bundle each name src/ imports, and map each import to its package (tests) and its bundle (dist)', () => {
    const imports = hashImports();
    expect(imports.length).toBeGreaterThan(0);
    for (const [file, specifier, names] of imports) {
      const target = pkg.imports[specifier];
      expect(target, `${file}: ${specifier} is not in package.json "imports"`).toBeDefined();
      const bundle = BUNDLES[target!.default.replace('./dist/vendor/', '')];
      expect(bundle, `${file}: ${target!.default} is not built by scripts/bundle-dependencies.mjs`).toBeDefined();
      const bundled = bundle![target!.source];
      expect(bundled, `${target!.default} holds no ${target!.source}`).toBeDefined();
      for (const name of names) expect(bundled, `${file} imports ${name} from ${specifier}`).toContain(name);
    }
  });
});
