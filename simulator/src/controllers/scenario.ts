// The mock cluster's scenario: how the simulated operators behave and how long node updates take.
// It lives in ConfigMap openshift-config/cincy-mock-scenario (keys `operators`, `nodes`, `nodeDefaults`
// hold JSON, beside `platform`, `region`, `featureSet`, `proxy`), so tests and people change it through
// the API while the cluster runs; `cincy mock-cluster --scenario FILE` loads a YAML file into it at start.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseDuration } from 'cincy/duration';
import { kindNamed } from '../apiserver/kinds.js';
import { type ClusterState } from '../apiserver/state.js';

/** Where the scenario lives (the /metrics knobs too): a ConfigMap tests and people can edit through the API. */
export const SCENARIO = { namespace: 'openshift-config', name: 'cincy-mock-scenario' };

export const NODE_PHASES = ['cordon', 'drain', 'update', 'reboot', 'uncordon'] as const;
export type NodePhase = (typeof NODE_PHASES)[number];
/** Simulated milliseconds per phase. */
export type NodeTimings = Partial<Record<NodePhase, number>>;

export const BEHAVIORS = ['normal', 'degraded', 'unavailable'] as const;
export type Behavior = (typeof BEHAVIORS)[number];
export interface OperatorScenario {
  /** Simulated ms from the new version's Deployment to the operator's report; default per operator. */
  duration?: number;
  behavior: Behavior;
}

export interface Scenario {
  operators: Record<string, OperatorScenario>;
  nodes: Record<string, NodeTimings>;
  nodeDefaults: NodeTimings;
}

export const EMPTY_SCENARIO: Scenario = { operators: {}, nodes: {}, nodeDefaults: {} };

/** A scenario mistake; the message names where (file or ConfigMap) and the field. */
export class ScenarioError extends Error {}

type Fail = (field: string, problem: string) => never;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function duration(v: unknown, field: string, fail: Fail): number {
  const ms = typeof v === 'string' ? parseDuration(v) : undefined;
  if (ms === undefined) fail(field, `${JSON.stringify(v)} is not a duration (write e.g. 90s, 5m, 1h30m)`);
  return ms!;
}

function timings(v: unknown, field: string, fail: Fail): NodeTimings {
  if (!isObject(v)) fail(field, `must be a mapping of phase to duration (phases: ${NODE_PHASES.join(', ')})`);
  const out: NodeTimings = {};
  for (const [phase, d] of Object.entries(v as object)) {
    if (!(NODE_PHASES as readonly string[]).includes(phase))
      fail(`${field}.${phase}`, `unknown phase (one of ${NODE_PHASES.join(', ')})`);
    out[phase as NodePhase] = duration(d, `${field}.${phase}`, fail);
  }
  return out;
}

/**
 * Checks the scenario's structured parts (already parsed from JSON or YAML). `known` lists the operators
 * and nodes that exist, when the caller knows them, so a misspelt name is an error rather than ignored.
 */
export function checkScenario(
  v: { operators?: unknown; nodes?: unknown; nodeDefaults?: unknown },
  fail: Fail,
  known?: { operators: string[]; nodes: string[] },
): Scenario {
  const out: Scenario = { operators: {}, nodes: {}, nodeDefaults: {} };
  if (v.operators !== undefined) {
    if (!isObject(v.operators)) fail('operators', 'must be a mapping of ClusterOperator name to {duration, behavior}');
    for (const [co, spec] of Object.entries(v.operators as object)) {
      const f = `operators.${co}`;
      if (known && !known.operators.includes(co)) fail(f, 'no such ClusterOperator in this cluster');
      if (!isObject(spec)) fail(f, 'must be a mapping with duration and/or behavior');
      for (const k of Object.keys(spec as object))
        if (k !== 'duration' && k !== 'behavior') fail(`${f}.${k}`, 'unknown field (duration, behavior)');
      const { duration: d, behavior = 'normal' } = spec as { duration?: unknown; behavior?: unknown };
      if (!(BEHAVIORS as readonly unknown[]).includes(behavior))
        fail(`${f}.behavior`, `${JSON.stringify(behavior)} is not a behavior (one of ${BEHAVIORS.join(', ')})`);
      out.operators[co] = {
        behavior: behavior as Behavior,
        ...(d !== undefined && { duration: duration(d, `${f}.duration`, fail) }),
      };
    }
  }
  if (v.nodes !== undefined) {
    if (!isObject(v.nodes)) fail('nodes', 'must be a mapping of node name to phase durations');
    for (const [node, t] of Object.entries(v.nodes as object)) {
      if (known && !known.nodes.includes(node)) fail(`nodes.${node}`, 'no such node in this cluster');
      out.nodes[node] = timings(t, `nodes.${node}`, fail);
    }
  }
  if (v.nodeDefaults !== undefined) out.nodeDefaults = timings(v.nodeDefaults, 'nodeDefaults', fail);
  return out;
}

const SCENARIO_SOURCE = `ConfigMap ${SCENARIO.namespace}/${SCENARIO.name}`;

/** The scenario the ConfigMap declares (absent keys: defaults); throws ScenarioError naming the key. */
export function readScenario(state: ClusterState): Scenario {
  const cm = state.find(kindNamed('ConfigMap'), SCENARIO.namespace, SCENARIO.name);
  if (!cm) return EMPTY_SCENARIO;
  const data = (cm.data ?? {}) as Record<string, string>;
  const fail: Fail = (field, problem) => {
    throw new ScenarioError(`${SCENARIO_SOURCE}: ${field}: ${problem}`);
  };
  const parsed: Record<string, unknown> = {};
  for (const key of ['operators', 'nodes', 'nodeDefaults'] as const) {
    if (data[key] === undefined || data[key] === '') continue;
    try {
      parsed[key] = JSON.parse(data[key]);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      fail(key, 'is not JSON');
    }
  }
  return checkScenario(parsed, fail);
}

const TEXT_KEYS = ['platform', 'region', 'featureSet', 'proxy'];

/**
 * Reads a scenario YAML file and returns the ConfigMap data it stands for (structured keys as JSON).
 * Errors name the file and the field.
 */
export function scenarioFileData(
  file: string,
  known?: { operators: string[]; nodes: string[] },
): Record<string, string> {
  const fail: Fail = (field, problem) => {
    throw new ScenarioError(`${file}: ${field}: ${problem}`);
  };
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ScenarioError(`${file}: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isObject(doc)) fail('(top level)', 'must be a mapping');
  const d = doc as Record<string, unknown>;
  const data: Record<string, string> = {};
  for (const [key, v] of Object.entries(d)) {
    if (TEXT_KEYS.includes(key)) {
      if (typeof v !== 'string' && typeof v !== 'boolean') fail(key, 'must be a string');
      data[key] = String(v);
    } else if (!['operators', 'nodes', 'nodeDefaults'].includes(key)) {
      fail(key, `unknown key (one of ${[...TEXT_KEYS, 'operators', 'nodes', 'nodeDefaults'].join(', ')})`);
    }
  }
  // Durations are stored as written ("5m"), so the ConfigMap reads as the file did.
  checkScenario(d, fail, known);
  for (const key of ['operators', 'nodes', 'nodeDefaults'])
    if (d[key] !== undefined) data[key] = JSON.stringify(d[key]);
  return data;
}
