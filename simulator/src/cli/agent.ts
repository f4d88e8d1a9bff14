// `cincy agent --follow-mock-clock`: the product's agent, its update executor on the simulated clock a mock
// cluster declares, so that a 90-minute update plays out in a minute of real time. Without the flag it is
// the product's agent as it is. On the simulated cluster the payload comes by its Job unless told otherwise.
import pino from 'pino';
import { agentCommand, type AgentCliOptions } from 'cincy/cli/agent';
import { clusterApi, loadKubeConfig } from 'cincy/cli/kubeconfig';
import { followMockClock } from '../clock/followedClock.js';

export async function agentOnMockClock(o: AgentCliOptions & { followMockClock?: boolean }): Promise<number> {
  if (!o.followMockClock) return agentCommand(o);
  // The simulated cluster's nodes share the payload store as their host folder: its payload Job fills it.
  const onMock = { ...o, payloadRetrieval: o.payloadRetrieval ?? 'job' };
  const api = clusterApi(loadKubeConfig(onMock), 'cincy-agent');
  const followed = followMockClock(api, pino({ level: onMock.logLevel }));
  return agentCommand(onMock, { clock: followed.clock, beforeSync: followed.refresh });
}
