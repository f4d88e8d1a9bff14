// A demo conflict (app/demoStore.ts) as the command line says it: what happened, then which flags to
// change.
import { describeDemoConflict, type DemoConflict } from '../app/demoStore.js';
import { DEMO_DB } from '../settings.js';

export function demoConflictMessage(c: DemoConflict): string {
  const what = describeDemoConflict(c);
  return c.kind === 'demo-into-real'
    ? `${what}: --demo serves from a store of its own (leave out --db for ${DEMO_DB})`
    : `${what}: give real data a store of its own (--db FILE or a postgres:// URL), or remove ${c.where} to start it anew`;
}
