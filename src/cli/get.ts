// `cincy get <kind> [name]`: the tables `oc get` prints for the kinds an update moves (cluster operators,
// nodes, machine config pools, the cluster version), or the objects as JSON. Ages count on the API server's
// clock, which the times it shows are in.
import { formatAge } from '../duration.js';
import { isNotFound } from '../cluster/apiError.js';
import { KUBE_LABEL } from '../cluster/labels.js';
import { RESOURCES } from '../cluster/resources.js';
import type { GetPrinter as Printer, Obj } from './getPrinter.js';
import { clientErrorLine } from './kubeErrors.js';
import { connectCluster } from './kubeconfig.js';
import { IBU_PRINTER } from './getIbu.js';
import { table } from './table.js';

const cond = (o: Obj, type: string): { status: string; lastTransitionTime?: string; message?: string } | undefined =>
  o.status?.conditions?.find((c) => c.type === type);
const st = (o: Obj, type: string): string => cond(o, type)?.status ?? '';

const PRINTERS: Record<string, Printer> = {
  clusteroperators: {
    resource: RESOURCES.clusterOperators,
    columns: ['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'DEGRADED', 'SINCE', 'MESSAGE'],
    row: (o, age) => {
      const versions = (o.status?.versions ?? []) as Array<{ name: string; version: string }>;
      // The message of what needs attention first: Degraded, then unavailable, then progressing.
      const notable = (type: string, status: string): string | undefined =>
        cond(o, type)?.status === status ? cond(o, type)?.message || undefined : undefined;
      const message =
        notable('Degraded', 'True') ?? notable('Available', 'False') ?? notable('Progressing', 'True') ?? '';
      return [
        o.metadata.name,
        versions.find((v) => v.name === 'operator')?.version ?? '',
        st(o, 'Available'),
        st(o, 'Progressing'),
        st(o, 'Degraded'),
        age(cond(o, 'Available')?.lastTransitionTime),
        message.replace(/\n/g, ' '),
      ];
    },
  },
  nodes: {
    resource: RESOURCES.nodes,
    columns: ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'],
    row: (o, age) => {
      const ready = cond(o, 'Ready')?.status;
      const status = `${ready === 'True' ? 'Ready' : ready === 'False' ? 'NotReady' : 'Unknown'}${o.spec?.unschedulable ? ',SchedulingDisabled' : ''}`;
      const prefix = KUBE_LABEL.nodeRolePrefix;
      const roles = Object.keys(o.metadata.labels ?? {})
        .filter((l) => l.startsWith(prefix))
        .map((l) => l.slice(prefix.length))
        .sort();
      return [
        o.metadata.name,
        status,
        roles.join(',') || '<none>',
        age(o.metadata.creationTimestamp),
        (o.status?.nodeInfo as { kubeletVersion?: string } | undefined)?.kubeletVersion ?? '',
      ];
    },
    wide: {
      columns: ['INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME'],
      row: (o) => {
        const addresses = (o.status?.addresses ?? []) as Array<{ type: string; address: string }>;
        const address = (type: string): string => addresses.find((a) => a.type === type)?.address ?? '<none>';
        const info = (o.status?.nodeInfo ?? {}) as Record<string, string | undefined>;
        return [
          address('InternalIP'),
          address('ExternalIP'),
          info.osImage || '<unknown>',
          info.kernelVersion || '<unknown>',
          info.containerRuntimeVersion || '<unknown>',
        ];
      },
    },
  },
  machineconfigpools: {
    resource: RESOURCES.machineConfigPools,
    columns: [
      'NAME',
      'CONFIG',
      'UPDATED',
      'UPDATING',
      'DEGRADED',
      'MACHINECOUNT',
      'READYMACHINECOUNT',
      'UPDATEDMACHINECOUNT',
      'DEGRADEDMACHINECOUNT',
      'AGE',
    ],
    row: (o, age) => {
      const s = (o.status ?? {}) as { configuration?: { name?: string }; [k: string]: unknown };
      const n = (k: string): string => String(s[k] ?? '');
      return [
        o.metadata.name,
        s.configuration?.name ?? '',
        st(o, 'Updated'),
        st(o, 'Updating'),
        st(o, 'Degraded'),
        n('machineCount'),
        n('readyMachineCount'),
        n('updatedMachineCount'),
        n('degradedMachineCount'),
        age(o.metadata.creationTimestamp),
      ];
    },
  },
  clusterversions: {
    resource: RESOURCES.clusterVersions,
    columns: ['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'SINCE', 'STATUS'],
    row: (o, age) => {
      const history = (o.status?.history ?? []) as Array<{ state: string; version: string }>;
      return [
        o.metadata.name,
        history.find((h) => h.state === 'Completed')?.version ?? '',
        st(o, 'Available'),
        st(o, 'Progressing'),
        age(cond(o, 'Progressing')?.lastTransitionTime),
        cond(o, 'Progressing')?.message ?? '',
      ];
    },
  },
  imagebasedupgrades: IBU_PRINTER,
};

const ALIASES: Record<string, string> = {
  clusteroperators: 'clusteroperators',
  clusteroperator: 'clusteroperators',
  co: 'clusteroperators',
  nodes: 'nodes',
  node: 'nodes',
  no: 'nodes',
  machineconfigpools: 'machineconfigpools',
  machineconfigpool: 'machineconfigpools',
  mcp: 'machineconfigpools',
  clusterversions: 'clusterversions',
  clusterversion: 'clusterversions',
  imagebasedupgrades: 'imagebasedupgrades',
  imagebasedupgrade: 'imagebasedupgrades',
  ibu: 'imagebasedupgrades',
};

export async function getCommand(
  kind: string,
  name: string | undefined,
  o: { kubeconfig?: string; output?: string },
): Promise<number> {
  // Not one kind: the coordinated maintenance with workload locks, as a report (getMaintenance.ts).
  if (kind.toLowerCase() === 'maintenance') return (await import('./getMaintenance.js')).maintenanceCommand(o);
  const resource = ALIASES[kind.toLowerCase()];
  if (!resource)
    throw new Error(
      `get: unknown resource type '${kind}' (one of clusteroperators|co, nodes|no, machineconfigpools|mcp, clusterversion, imagebasedupgrades|ibu, maintenance)`,
    );
  if (o.output !== undefined && o.output !== 'json' && o.output !== 'wide')
    throw new Error(`-o: '${o.output}' is not an output format (json, wide, or none for a table)`);
  const printer = PRINTERS[resource]!;
  const { api, origin } = connectCluster(o);
  let items: Obj[];
  let now: number;
  try {
    items = name ? [await api.get<Obj>(printer.resource, { name })] : (await api.list<Obj>(printer.resource)).items;
    now = await api.serverTime();
  } catch (err) {
    if (isNotFound(err)) {
      const unserved = printer.unserved && (await api.list(printer.resource).then(() => false, isNotFound));
      if (unserved) throw new Error(printer.unserved);
      throw new Error(`get: ${(err as Error).message}`);
    }
    throw new Error(clientErrorLine(err, origin) ?? (err as Error).message, { cause: err });
  }
  if (o.output === 'json') {
    process.stdout.write(`${JSON.stringify(name ? items[0] : { apiVersion: 'v1', kind: 'List', items }, null, 2)}\n`);
    return 0;
  }
  if (items.length === 0) {
    process.stderr.write('No resources found\n');
    return 0;
  }
  const age = (time: string | undefined): string => (time ? formatAge(now - Date.parse(time)) : '<unknown>');
  // Three spaces between columns, as kubectl's tabwriter pads them.
  const wide = o.output === 'wide' ? printer.wide : undefined;
  process.stdout.write(
    table(
      [...printer.columns, ...(wide?.columns ?? [])],
      items.map((i) => [...printer.row(i, age), ...(wide?.row(i) ?? [])]),
      3,
    ) + (printer.after?.(items, age) ?? ''),
  );
  return 0;
}
