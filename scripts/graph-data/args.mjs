// Command-line arguments of scripts/generate-graph-data.mjs.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SIZES } from './profiles.mjs';

const USAGE =
  'usage: node scripts/generate-graph-data.mjs [--out DIR] [--size demo|full] [--seed N] [--check]\n' +
  '       node scripts/generate-graph-data.mjs --check-only DIR [--size demo|full]\n';

function usageError(message) {
  process.stderr.write(`${message}\n${USAGE}`);
  process.exit(2);
}

/**
 * `{ out, outDir, size, seed, check, checkOnly }`: `outDir` and `checkOnly` resolved against the
 * current directory. Prints the usage and exits on --help (0) or on a bad argument (2).
 */
export function parseArguments(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        out: { type: 'string', default: 'graph-data' },
        size: { type: 'string', default: 'demo' },
        seed: { type: 'string', default: '1' },
        check: { type: 'boolean', default: false },
        'check-only': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    usageError(err.message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (!Object.hasOwn(SIZES, values.size)) {
    usageError(`unknown --size ${JSON.stringify(values.size)} (expected demo or full)`);
  }
  if (!/^\d+$/.test(values.seed)) {
    usageError(`--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}`);
  }
  const checkOnly = values['check-only'];
  return {
    out: values.out,
    outDir: path.resolve(process.cwd(), values.out),
    size: values.size,
    seed: Number(values.seed),
    check: values.check,
    checkOnly: checkOnly === undefined ? undefined : path.resolve(process.cwd(), checkOnly),
  };
}
