// `cincy agent --follow-mock-clock`: the product's agent, its update executor on the simulated clock a mock
// cluster declares, so that a 90-minute update plays out in a minute of real time. Without the flag it is
// the product's agent as it is.
import pino from 'pino';
import { agentCommand, type AgentCliOptions } from 'cincy/cli/agent';
import { clusterApi, loadKubeConfig } from 'cincy/cli/kubeconfig';
import { followMockClock } from '../clock/followedClock.js';

export async function agentOnMockClock(o: AgentCliOptions & { followMockClock?: boolean }): Promise<number> {
  if (!o.followMockClock) return agentCommand(o);
  const api = clusterApi(loadKubeConfig(o), 'cincy-agent');
  const followed = followMockClock(api, pino({ level: o.logLevel }));
  return agentCommand(o, { clock: followed.clock, beforeSync: followed.refresh });
}
