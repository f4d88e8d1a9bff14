// The checks `npm test` runs before the tests, side by side (each takes one core): the typecheck
// (tsc --noEmit), ESLint and the prettier check. Each one's output is printed when it ends, with its
// time; the exit code is 1 when any failed. Usage: node scripts/dev/static-checks.mjs [typecheck] [eslint]
// [prettier] (default: all three).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const bin = (pkg, file) => join(ROOT, 'node_modules', pkg, file);
const CHECKS = {
  typecheck: [bin('typescript', 'bin/tsc'), '--noEmit'],
  eslint: [bin('eslint', 'bin/eslint.js'), '.'],
  prettier: [bin('prettier', 'bin/prettier.cjs'), '--check', '.'],
};

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in CHECKS));
if (unknown.length) {
  console.error(`unknown check(s): ${unknown.join(', ')}; known: ${Object.keys(CHECKS).join(', ')}`);
  process.exit(2);
}
const names = asked.length ? asked : Object.keys(CHECKS);

function run(name) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, CHECKS[name], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b) => (output += b));
    child.stderr.on('data', (b) => (output += b));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${code === 0 ? 'ok' : 'FAILED'}  ${name} (${seconds} s)`);
      if (code !== 0 || output.trim()) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(names.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
