// Empties dist/ of compiled code before a build, so nothing a source file no longer makes (a file moved or
// deleted since) is left to be shipped or run. dist/ui is kept: build-ui.mjs keeps a day of older assets
// there for servers started before a build.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const dist = join(import.meta.dirname, '..', 'dist');
let entries = [];
try {
  entries = readdirSync(dist);
} catch {
  // no dist/ yet: nothing to empty
}
for (const entry of entries) if (entry !== 'ui') rmSync(join(dist, entry), { recursive: true, force: true });
