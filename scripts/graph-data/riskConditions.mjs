// The cluster conditions a risk can be limited to: a tag for the risk's name, a phrase that opens its
// message, and the PromQL rule that matches such clusters. Every query ends with "or 0 * group(...)"
// over all clusters, so a cluster without the metric gets a clear "no" instead of no answer at all.
import { numRange } from './patterns.mjs';

const FALLBACK_ALL = `0 * group(cluster_version{_id=""})`;
const anyOf = (selector) => `group(${selector})\nor\n${FALLBACK_ALL}\n`;
const bothOf = (first, second) =>
  `group(\n  ${first}\n  * on (_id) group_left ()\n  ${second}\n)\nor\n${FALLBACK_ALL}\n`;

const provider = (type) => {
  const op = type.includes('|') ? '=~' : '=';
  return anyOf(`cluster_infrastructure_provider{_id="",type${op}"${type}"}`);
};
const onProvider = (tag, phrase, type = tag) => ({ tag, phrase, q: () => provider(type) });
const capability = (name) => ({
  tag: '',
  phrase: `On clusters with the ${name} capability enabled`,
  q: () => anyOf(`cluster_version_capability{_id="",name="${name}"} == 1`),
});
const operatorCondition = (name, condition, value, phrase) => ({
  tag: '',
  phrase,
  q: () => anyOf(`cluster_operator_conditions{_id="",name="${name}",condition="${condition}"} == ${value}`),
});
const runsOperator = (csvPrefix, phrase) => ({
  tag: '',
  phrase,
  q: () => anyOf(`csv_succeeded{_id="",name=~"${csvPrefix}[.].*"}`),
});

/** Conditions by key; a risk is named `<tag><problem name>`. */
export const CONDITIONS = {
  AWS: onProvider('AWS', 'On AWS clusters'),
  Azure: onProvider('Azure', 'On Azure clusters'),
  GCP: onProvider('GCP', 'On GCP clusters'),
  VSphere: onProvider('VSphere', 'On vSphere clusters'),
  BareMetal: onProvider('BareMetal', 'On bare-metal clusters'),
  OpenStack: onProvider('OpenStack', 'On OpenStack clusters'),
  Nutanix: onProvider('Nutanix', 'On Nutanix clusters'),
  IBMCloud: onProvider('IBMCloud', 'On IBM Cloud clusters'),
  OnPrem: onProvider('OnPrem', 'On vSphere and platform-agnostic clusters', 'VSphere|None'),
  Proxy: {
    tag: 'Proxy',
    phrase: 'On clusters that send egress traffic through a cluster-wide HTTPS proxy',
    q: () => anyOf(`cluster_proxy_enabled{_id="",type="https"}`),
  },
  FeatureSet: {
    tag: 'FeatureSet',
    phrase: 'On clusters with a non-default feature set',
    q: () => anyOf(`cluster_feature_set{_id="",name!=""}`),
  },
  RHEL: {
    tag: 'RHEL',
    phrase: 'On clusters with RHEL compute nodes',
    q: () => anyOf(`kube_node_labels{_id="",label_node_openshift_io_os_id="rhel"}`),
  },
  UPI: {
    tag: 'UPI',
    phrase: 'On clusters installed on user-provisioned infrastructure',
    q: () => anyOf(`cluster_installer{_id="",type="upi"}`),
  },
  LongLived: {
    tag: 'LongLived',
    phrase: (m) => `On clusters originally installed as 4.${Math.max(1, m - 4)} or earlier`,
    q: (m) => anyOf(`cluster_version{_id="",type="initial",version=~"4[.](${numRange(1, Math.max(1, m - 4))})[.].*"}`),
  },
  VSphereHW: {
    tag: 'VSphereHW',
    phrase: 'On vSphere clusters with virtual machines below hardware version 15',
    q: () => anyOf(`vsphere_node_hw_version_total{_id="",hw_version=~"vmx-(9|1[0-4])"} > 0`),
  },
  AzureProxy: {
    tag: 'AzureProxy',
    phrase: 'On Azure clusters with a cluster-wide HTTPS proxy',
    q: () => bothOf(`cluster_infrastructure_provider{_id="",type="Azure"}`, `cluster_proxy_enabled{_id="",type="https"}`),
  },
  AWSSTS: {
    tag: 'AWSSTS',
    phrase: 'On AWS clusters that use short-lived STS credentials',
    q: () =>
      bothOf(`cluster_infrastructure_provider{_id="",type="AWS"}`, `cco_credentials_mode{_id="",mode="manualpodidentity"}`),
  },
  CapBuild: capability('Build'),
  CapConsole: capability('Console'),
  CapRegistry: capability('ImageRegistry'),
  CapInsights: capability('Insights'),
  MCODegraded: operatorCondition(
    'machine-config',
    'Degraded',
    1,
    'On clusters where the machine-config operator already reports Degraded',
  ),
  NetworkDegraded: operatorCondition(
    'network',
    'Degraded',
    1,
    'On clusters where the network operator already reports Degraded',
  ),
  IngressNotUpgradeable: operatorCondition(
    'ingress',
    'Upgradeable',
    0,
    'On clusters where the ingress operator reports Upgradeable=False',
  ),
  LoggingOperator: runsOperator('cluster-logging', 'On clusters running the cluster logging operator'),
  StorageOperator: runsOperator('odf-operator', 'On clusters running the data foundation storage operator'),
};
