#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm ci` (the prepare script).
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { process.stderr.write(`cincy: ${err instanceof Error ? err.message : String(err)}\n`); process.exitCode = 1; },
);
