#!/usr/bin/env node
// The simulator's commands (mock-cluster, payload create|push, seed push, agent --follow-mock-clock), built
// into dist/ by the clone's `npm ci`. `cincy` hands these commands here in a clone (bin/cincy.js).
import { escapeLines } from 'cincy/cli/terminalText';
import { simulatorMain as main } from '../dist/main.js';

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(0);
  });
}

main(process.argv).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`cincy: ${escapeLines(err instanceof Error ? err.message : String(err))}\n`);
    process.exitCode = 1;
  },
);
