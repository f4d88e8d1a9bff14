// docs/reference/ is generated from the code (scripts/docs/reference.mjs): the command lines from the
// commander programs of src/cli/main.ts and simulator/src/cli/main.ts, the settings of serve from
// src/settings.ts. The texts are
// rendered here from src/ and must equal the checked-in pages, as openapi/openapi.json must equal
// what the server serves (test/service/server/plugins/openapi.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_DIR, referenceTexts } from '../../scripts/docs/reference.mjs';
import { buildSimulatorProgram } from '@cincy/simulator/cli/main';
import { buildProgram } from '../../src/cli/main.js';
import { SETTINGS } from '../../src/settings.js';

const texts = referenceTexts({
  buildProgram: () => buildProgram(),
  buildSimulatorProgram: () => buildSimulatorProgram(),
  settings: SETTINGS,
});

describe('docs/reference', () => {
  it.each(Object.keys(texts))('%s is what the code says', (file) => {
    expect(
      readFileSync(join(REFERENCE_DIR, file), 'utf8'),
      `docs/reference/${file} is stale: run \`npm run build && npm run docs\``,
    ).toBe(texts[file]);
  });

  it('holds no generated page the generator no longer writes', () => {
    const generated = readdirSync(REFERENCE_DIR).filter((f) => f !== 'README.md');
    expect(generated.sort()).toEqual(Object.keys(texts).sort());
  });

  it('lists every command and subcommand, with its options', () => {
    const cli = texts['cli.md'] ?? '';
    const walk = (cmd: ReturnType<typeof buildProgram>, path: string[]): void => {
      const name = [...path, cmd.name()].join(' ');
      expect(cli).toContain(`\n## ${name}\n`);
      for (const option of cmd.options) expect(cli).toContain(`- \`${option.flags}\``);
      for (const sub of cmd.commands) walk(sub, [...path, cmd.name()]);
    };
    walk(buildProgram(), []);
    const simulator = texts['simulator-cli.md'] ?? '';
    for (const cmd of buildSimulatorProgram().commands) expect(simulator).toContain(`\n## cincy ${cmd.name()}\n`);
    for (const s of Object.values(SETTINGS)) expect(texts['settings.md']).toContain(`| \`${s.env}\` |`);
  });
});
