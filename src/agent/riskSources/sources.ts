// The risk sources the agent runs, by name, as the `--risk-sources` flag chooses them: the names are the
// cluster-version-operator's own source names, so a log line or a risk name says where a risk came from.
import type { ClusterApi } from '../../cluster/api.js';
import { adminAckSource } from './adminAck.js';
import { alertSource, type PrometheusAccess } from './alert.js';
import { ADMIN_ACK_SOURCE, ALERT_SOURCE, RISK_SOURCE_NAMES } from './names.js';
import type { RiskSource } from './source.js';
import { upgradeableSource } from './upgradeable.js';

/** The names a flag value lists (`none` for none); a name not known is an error naming it and the known ones. */
export function riskSourceNames(value: string): string[] {
  if (value.trim() === 'none') return [];
  const names = value.split(',').map((n) => n.trim());
  for (const name of names)
    if (!(RISK_SOURCE_NAMES as readonly string[]).includes(name))
      throw new Error(`--risk-sources: '${name}' is none of ${RISK_SOURCE_NAMES.join(', ')} (or none)`);
  return [...new Set(names)];
}

/** The sources named; the alert source only with a Prometheus to ask. */
export function riskSources(names: string[], api: ClusterApi, prometheus: PrometheusAccess | undefined): RiskSource[] {
  return names.flatMap((name): RiskSource[] => {
    if (name === ALERT_SOURCE) return prometheus ? [alertSource(prometheus)] : [];
    if (name === ADMIN_ACK_SOURCE) return [adminAckSource(api)];
    return [upgradeableSource(api)];
  });
}
