// `cincy get ibu`: the ImageBasedUpgrade as an operator reads it — the stage asked for, the stage the agent is
// at and how it stands (the latest condition), what the stage may move to next, and below the table each
// stage run with its phases and how long they took.
import { RESOURCES } from '../cluster/resources.js';
import { formatAge } from '../duration.js';
import type { GetPrinter } from './getPrinter.js';

interface Run {
  stage: string;
  startTime?: string;
  completionTime?: string;
  phases?: Array<{ phase: string; startTime?: string; completionTime?: string }>;
}

/** The stage a condition type is about (PrepInProgress: Prep). */
const stageOf = (type: string): string => type.replace(/(InProgress|Completed)$/, '');

export const IBU_PRINTER: GetPrinter = {
  resource: RESOURCES.imageBasedUpgrades,
  unserved:
    'get ibu: the cluster does not serve lca.openshift.io/v1 ImageBasedUpgrade (no Lifecycle Agent; mock-cluster --single-node simulates one)',
  columns: ['NAME', 'DESIRED STAGE', 'STAGE', 'STATE', 'NEXT STAGES', 'SINCE', 'DETAILS'],
  row: (o, age) => {
    const conditions = o.status?.conditions ?? [];
    const last = conditions[conditions.length - 1] as
      { type: string; reason?: string; message?: string; lastTransitionTime?: string } | undefined;
    const next = (o.status?.validNextStages ?? []) as string[];
    return [
      o.metadata.name,
      String(o.spec?.stage ?? ''),
      last ? stageOf(last.type) : '',
      last?.reason ?? '',
      next.join(',') || '<none>',
      age(last?.lastTransitionTime),
      (last?.message ?? '').replace(/\n/g, ' '),
    ];
  },
  after: (items, age) => {
    const lines: string[] = [];
    for (const o of items) {
      const runs = (o.status?.history ?? []) as Run[];
      if (runs.length === 0) continue;
      lines.push('', `${o.metadata.name}: stage runs`);
      const took = (a?: string, b?: string): string =>
        a && b ? ` took ${formatAge(Date.parse(b) - Date.parse(a))}` : a ? ' running' : '';
      for (const r of runs) {
        const end = r.completionTime ? `,${took(r.startTime, r.completionTime)}` : ', not completed';
        lines.push(`  ${r.stage}: started ${age(r.startTime)} ago${end}`);
        for (const p of r.phases ?? []) lines.push(`    ${p.phase}:${took(p.startTime, p.completionTime)}`);
      }
      const expiry = o.status?.rollbackAvailabilityExpiration as string | undefined;
      if (expiry) lines.push(`  rollback available without certificate recovery until ${expiry}`);
    }
    return lines.length ? `${lines.join('\n')}\n` : '';
  },
};
