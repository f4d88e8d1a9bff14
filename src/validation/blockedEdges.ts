// Blocked edges, from a blocked-edges file or the admin API, classified strictly: a full risk (to,
// from, url, name, message, matchingRules) or a hard block (to, from); anything between is an error.
import type { BlockedEdge } from '../graph/model.js';
import { patternError } from '../graph/pattern.js';
import { isUri } from '../schemas/formats.js';
import {
  AlwaysRuleSchema,
  HARD_BLOCK_KEYS,
  PromQLRuleSchema,
  RISK_ONLY_KEYS,
  type MatchingRule,
} from '../schemas/graphData.js';
import { schemaProblems, type Problem } from './problems.js';
import { checkVersionReference } from './versionReferences.js';

const ALLOWED_KEYS: ReadonlySet<string> = new Set([...HARD_BLOCK_KEYS, ...RISK_ONLY_KEYS]);
const RISK_KEYS = ['url', 'name', 'message', 'matchingRules'] as const;

/** The blocked edge a document describes, or undefined after recording why it is not one. */
export function classifyBlockedEdge(
  doc: unknown,
  file: string,
  id: string,
  errors: Problem[],
  warnings: Problem[],
): BlockedEdge | undefined {
  const err = (field: string, message: string): void => void errors.push({ file, field, message });
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    err('(document)', 'a blocked edge is a mapping with to and from');
    return undefined;
  }
  const d = doc as Record<string, unknown>;
  for (const k of Object.keys(d))
    if (!ALLOWED_KEYS.has(k)) err(k, `unknown key (a blocked edge has ${[...ALLOWED_KEYS].join(', ')})`);
  for (const k of ['to', 'from'] as const) {
    if (typeof d[k] !== 'string' || d[k] === '') err(k, 'required, a non-empty string');
  }
  if (typeof d.to === 'string' && d.to !== '') checkVersionReference(d.to, file, 'to', errors);
  if (typeof d.from === 'string' && d.from !== '') {
    const e = patternError(d.from);
    if (e) err('from', `invalid regular expression: ${e}`);
  }
  if (d.fixedIn !== undefined && typeof d.fixedIn !== 'string') err('fixedIn', 'must be a version string');

  const risk = riskOf(d, file, errors, warnings);
  if (errors.some((e) => e.file === file)) return undefined;
  const edge: BlockedEdge = { id, to: d.to as string, from: d.from as string };
  if (risk) edge.risk = risk;
  if (typeof d.fixedIn === 'string') edge.fixedIn = d.fixedIn;
  if (d.autoExtend !== undefined) edge.autoExtend = d.autoExtend;
  return edge;
}

/** The risk of a blocked edge that has any risk key; undefined for a hard block or an incomplete risk. */
function riskOf(d: Record<string, unknown>, file: string, errors: Problem[], warnings: Problem[]): BlockedEdge['risk'] {
  const err = (field: string, message: string): void => void errors.push({ file, field, message });
  const riskKeys = RISK_ONLY_KEYS.filter((k) => d[k] !== undefined);
  if (riskKeys.length === 0) return undefined;
  const missing = RISK_KEYS.filter((k) => d[k] === undefined);
  for (const k of missing) {
    err(
      k,
      `missing: a risk has url, name, message and matchingRules (this file has ${riskKeys.join(', ')}); a hard block has only to and from`,
    );
  }
  if (d.url !== undefined && (typeof d.url !== 'string' || !isUri(d.url)))
    err('url', `'${String(d.url)}' is not a URI`);
  for (const k of ['name', 'message'] as const) {
    if (d[k] !== undefined && (typeof d[k] !== 'string' || (d[k] as string).trim() === ''))
      err(k, 'must be a non-empty string');
  }
  const rules = d.matchingRules;
  if (rules !== undefined) {
    if (!Array.isArray(rules) || rules.length === 0) err('matchingRules', 'must be a non-empty list of rules');
    else rules.forEach((rule, i) => checkRule(rule, `matchingRules[${i}]`, file, errors, warnings));
  }
  if (missing.length) return undefined;
  return {
    url: d.url as string,
    name: d.name as string,
    message: d.message as string,
    matchingRules: rules as MatchingRule[],
  };
}

/** Always and PromQL rules are checked against their schemas; a rule of another type is kept, with a warning. */
function checkRule(rule: unknown, field: string, file: string, errors: Problem[], warnings: Problem[]): void {
  if (typeof rule !== 'object' || rule === null || typeof (rule as { type?: unknown }).type !== 'string') {
    errors.push({ file, field, message: 'a rule is a mapping with a type (Always or PromQL)' });
    return;
  }
  const type = (rule as { type: string }).type;
  const schema = type === 'Always' ? AlwaysRuleSchema : type === 'PromQL' ? PromQLRuleSchema : undefined;
  if (schema) errors.push(...schemaProblems(schema, rule, file, `/${field.replace(/\[(\d+)\]/g, '/$1')}`));
  else
    warnings.push({
      file,
      field: `${field}.type`,
      message: `unknown rule type '${type}': kept and served (clusters skip rule types they do not know)`,
    });
}
