// `cincy agent --follow-mock-clock`: the update executor follows the simulated clock a mock cluster declares
// (declaredClock.ts), so that a 90-minute update plays out in a minute. The product's agent knows nothing of
// it: it takes whatever clock it is given, and real time unless given one.
import type { Logger } from 'pino';
import { ScaledClock } from 'cincy/clock';
import { FollowedClock } from './followed.js';
import type { ClusterApi } from 'cincy/cluster/api';
import { unlessNotFound } from 'cincy/cluster/apiError';
import { RESOURCES, type ConfigMap } from 'cincy/cluster/resources';
import { CLOCK_CONFIGMAP, clockFromData } from './declaredClock.js';

/** A clock that follows the declared one; `refresh` reads the declaration again (the mock may have been restarted at another scale). */
export function followMockClock(api: ClusterApi, log: Logger): { clock: FollowedClock; refresh(): Promise<void> } {
  const clock = new FollowedClock(new ScaledClock(1));
  let declared = '';
  const refresh = async (): Promise<void> => {
    const data = (await unlessNotFound(api.get<ConfigMap>(RESOURCES.configMaps, CLOCK_CONFIGMAP)))?.data;
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
