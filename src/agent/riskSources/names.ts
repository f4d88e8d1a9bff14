// The names of the agent's risk sources: the cluster-version-operator's own, so that a log line or a risk
// name says where a risk came from. Apart from the sources themselves, so that the command line lists them
// (`--risk-sources`) without loading what runs them.
export const ALERT_SOURCE = 'Alert';
export const ADMIN_ACK_SOURCE = 'AdminAck';
export const UPGRADEABLE_SOURCE = 'ClusterOperatorUpgradeable';

export const RISK_SOURCE_NAMES = [ALERT_SOURCE, ADMIN_ACK_SOURCE, UPGRADEABLE_SOURCE] as const;
export const ALL_RISK_SOURCES = RISK_SOURCE_NAMES.join(',');
