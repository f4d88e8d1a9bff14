// The "Update Health" section of `adm upgrade status`: the insights, worst first and newest first within a
// level, as a table (or, with --details=health, each with its description and reference); "Upgrade is
// proceeding well" when there is nothing to say.
import { alignColumns } from '../../table.js';
import { formatOcDuration } from '../../../duration.js';
import { LEVELS, type Insight } from './insight.js';

export function renderHealth(insights: Insight[], updatingFor: number, now: number, detailed: boolean): string {
  const sorted = [...insights]
    .sort((a, b) => (b.startedAt ?? -Infinity) - (a.startedAt ?? -Infinity))
    .sort((a, b) => LEVELS.indexOf(b.level) - LEVELS.indexOf(a.level));
  const quiet = sorted.length === 0;
  if (quiet)
    sorted.push({
      startedAt: now - updatingFor,
      level: 'Info',
      impact: 'None',
      summary: 'Upgrade is proceeding well',
      description: '',
    });
  const since = (i: Insight): string =>
    i.startedAt === undefined || !Number.isFinite(i.startedAt)
      ? '-'
      : formatOcDuration(Math.trunc((now - i.startedAt) / 1000) * 1000);
  let out = '= Update Health =\n';
  if (detailed) {
    const label = (name: string): string => `  ${name.padEnd('Description: '.length)}`;
    out += sorted
      .map(
        (i) =>
          `Message: ${i.summary}\n${label('Since:')}${since(i)}\n${label('Level:')}${i.level}\n${label('Impact:')}${i.impact}\n${label('Reference:')}${i.reference ?? ''}\n${label('Description:')}${i.description.replace(/\n/g, `\n${' '.repeat('Description: '.length + 2)}`)}\n`,
      )
      .join('\n');
    return out;
  }
  out += alignColumns(
    [['SINCE', 'LEVEL', 'IMPACT', 'MESSAGE'], ...sorted.map((i) => [since(i), i.level, i.impact, i.summary])],
    {
      padding: 3,
    },
  );
  if (!quiet)
    out += '\nRun with --details=health for additional description and links to related online documentation\n';
  return out;
}
