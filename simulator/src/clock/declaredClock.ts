// How a simulated cluster (the mock cluster) declares its clock, so that the tools acting on it see the
// same time: the ConfigMap openshift-config/cincy-mock-clock holds {scale, realEpoch, simEpoch}, numbers as
// text. A real cluster declares none; only tools asked to follow a mock cluster's clock read it.
import { ScaledClock } from 'cincy/clock';

export const CLOCK_CONFIGMAP = { namespace: 'openshift-config', name: 'cincy-mock-clock' };

/** The ConfigMap data that declares `clock`. */
export function clockData(clock: ScaledClock): Record<string, string> {
  return { scale: String(clock.scale), realEpoch: String(clock.realEpoch), simEpoch: String(clock.simEpoch) };
}

/** The clock a ConfigMap declares; real time when there is none or it is malformed. */
export function clockFromData(data: Record<string, string> | undefined): ScaledClock {
  const scale = Number(data?.scale);
  const realEpoch = Number(data?.realEpoch);
  const simEpoch = Number(data?.simEpoch);
  if (!(scale > 0) || !Number.isFinite(realEpoch) || !Number.isFinite(simEpoch)) return new ScaledClock(1);
  return new ScaledClock(scale, realEpoch, simEpoch);
}
