// For the mock cluster only (`cincy agent --follow-mock-clock`): the update executor follows the simulated
// clock the mock cluster declares, so that a 90-minute update plays out in a minute. On a real cluster the
// agent never reads it: its clock is real time.
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { FollowedClock, ScaledClock } from '../clock.js';
import { unlessNotFound } from '../cluster/apiError.js';
import { CLOCK_CONFIGMAP, clockFromData } from '../cluster/simulatedClock.js';

/** A clock that follows the declared one; `refresh` reads the declaration again (the mock may have been restarted at another scale). */
export function followMockClock(kc: k8s.KubeConfig, log: Logger): { clock: FollowedClock; refresh(): Promise<void> } {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const clock = new FollowedClock(new ScaledClock(1));
  let declared = '';
  const refresh = async (): Promise<void> => {
    const data = (await unlessNotFound(core.readNamespacedConfigMap({ ...CLOCK_CONFIGMAP })))?.data;
    const text = JSON.stringify(data ?? null);
    if (text === declared) return;
    declared = text;
    if (!data)
      log.warn(
        { configMap: CLOCK_CONFIGMAP },
        '--follow-mock-clock: the cluster declares no clock; following real time',
      );
    clock.source = clockFromData(data);
    if (data) log.info({ scale: (clock.source as ScaledClock).scale }, "following the mock cluster's clock");
  };
  return { clock, refresh };
}
