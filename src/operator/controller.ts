// The operator's loop: every UpdateService reconciled whenever anything it depends on changes — the
// UpdateServices themselves, the objects made for them, the pull secret and ConfigMaps of openshift-config,
// image.config.openshift.io — and again every resync period. Level-triggered: each pass reads the cluster
// as it is now, so a missed or repeated event costs nothing but a pass.
import type { Logger } from 'pino';
import type { ClusterApi, ListOptions, Resource } from '../cluster/api.js';
import { apiMessage, isNotFound } from '../cluster/apiError.js';
import { RESOURCES } from '../cluster/resources.js';
import { OPENSHIFT_CONFIG, readClusterInputs } from './clusterInputs.js';
import { MANAGED_BY } from './operands.js';
import { reconcileUpdateService } from './reconcile.js';
import type { UpdateService } from './updateService.js';

export interface ControllerOptions {
  /** The cincy image the Deployments run. */
  image: string;
  /** Only this namespace's UpdateServices; every namespace's without it. */
  namespace?: string;
  /** A pass at least this often, events or not. */
  resyncMs: number;
  log: Logger;
  /** The clock status times are written by. */
  now?: () => Date;
}

/** Events closer together than this make one pass. */
const SETTLE_MS = 200;
/** The pause before a watch that ended or failed is started again. */
const WATCH_RESTART_MS = 5_000;

/** One pass over every UpdateService; the number that failed. */
export async function reconcileAll(api: ClusterApi, o: Omit<ControllerOptions, 'resyncMs'>): Promise<number> {
  const list = await api.list<UpdateService>(RESOURCES.updateServices, o.namespace ? { namespace: o.namespace } : {});
  if (!list.items.length) return 0;
  const inputs = await readClusterInputs(api);
  let failed = 0;
  for (const us of list.items) {
    const where = { namespace: us.metadata.namespace, name: us.metadata.name };
    try {
      const r = await reconcileUpdateService(api, us, inputs, {
        image: o.image,
        now: (o.now?.() ?? new Date()).toISOString(),
      });
      if (r.failure) {
        failed++;
        o.log.warn({ ...where, failure: r.failure }, 'UpdateService not reconciled');
      } else if (r.statusWritten)
        o.log.info({ ...where, policyEngineURI: r.status.policyEngineURI }, 'UpdateService reconciled');
    } catch (err) {
      failed++;
      o.log.error({ ...where, err: apiMessage(err) }, 'UpdateService pass failed');
    }
  }
  return failed;
}

/** Runs until `signal` aborts. */
export async function runOperator(api: ClusterApi, o: ControllerOptions, signal: AbortSignal): Promise<void> {
  let wake: (() => void) | undefined;
  let pending = true;
  const kick = (): void => {
    pending = true;
    wake?.();
  };
  const managed = {
    labelSelector: Object.entries(MANAGED_BY)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  };
  const scope = o.namespace ? { namespace: o.namespace } : {};
  const watched: Array<[Resource, ListOptions]> = [
    [RESOURCES.updateServices, scope],
    [RESOURCES.configMaps, { namespace: OPENSHIFT_CONFIG }],
    [RESOURCES.secrets, { namespace: OPENSHIFT_CONFIG }],
    [RESOURCES.imageConfigs, {}],
    [RESOURCES.deployments, { ...scope, ...managed }],
    [RESOURCES.services, { ...scope, ...managed }],
    [RESOURCES.configMaps, { ...scope, ...managed }],
    [RESOURCES.secrets, { ...scope, ...managed }],
    [RESOURCES.podDisruptionBudgets, { ...scope, ...managed }],
    [RESOURCES.routes, { ...scope, ...managed }],
  ];
  for (const [resource, options] of watched) void keepWatching(api, resource, options, kick, o.log, signal);
  while (!signal.aborted) {
    if (pending) {
      pending = false;
      await reconcileAll(api, o).catch((err: unknown) =>
        o.log.error({ err: apiMessage(err) }, 'listing UpdateServices failed'),
      );
    }
    // Until an event (then a moment for the events that come with it) or the resync period.
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(resync);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const resync = setTimeout(() => ((pending = true), done()), o.resyncMs);
      wake = () => {
        wake = undefined;
        clearTimeout(resync);
        setTimeout(done, SETTLE_MS);
      };
      signal.addEventListener('abort', done);
      if (pending) wake();
    });
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** Watches one kind, kicking a pass at every event, and starts the watch again whenever it ends. */
async function keepWatching(
  api: ClusterApi,
  resource: Resource,
  options: ListOptions,
  kick: () => void,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  let said = false;
  while (!signal.aborted) {
    try {
      await api.watch(resource, options, () => kick(), signal);
      said = false;
    } catch (err) {
      // A kind the cluster does not serve (routes, image.config outside OpenShift) is looked for again later.
      if (!signal.aborted && !said && !isNotFound(err))
        log.warn({ resource: resource.resource, err: apiMessage(err) }, 'watch failed; trying again');
      said = true;
    }
    await pause(WATCH_RESTART_MS, signal);
  }
}
