// The risks and nodes of an update service's answer, as the tests of the agent's rules write them
// (test/unit/agent/: cincinnati, recommendations, risks; test/service/agent/: cincinnati, risks).
import type { GraphResponse } from '../../src/agent/cincinnati.js';
import type { Risk } from '../../src/graph/model.js';

/** A risk named `name`, with a URL and message made from the name; matching Always unless told. */
export const risk = (name: string, rules: Risk['matchingRules'] = [{ type: 'Always' }]): Risk => ({
  name,
  url: `https://issues.example/${name}`,
  message: `${name} hurts.`,
  matchingRules: rules,
});

/** A node of the answer, its payload pinned by a digest made from the version. */
export const node = (version: string, metadata: Record<string, string> = {}): GraphResponse['nodes'][number] => ({
  version,
  payload: `quay.example/r@sha256:${version.replace(/\D/g, '').padEnd(64, '0')}`,
  metadata,
});
