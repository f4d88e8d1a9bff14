// Risk definitions for blocked edges: a problem (riskTexts.mjs), optionally limited to a condition
// (riskConditions.mjs), with a URL, a message and matching rules. Names never repeat: each call hands
// out a new one, the natural pairings of problem and condition first, then the rest.
import { CONDITIONS } from './riskConditions.mjs';
import { ARM64_PROBLEMS, PROBLEMS, SECOND_SENTENCES } from './riskTexts.mjs';

/** A release rebuilt because of a packaging error: one risk shared by every such blocked edge. */
export const RESPIN = {
  name: 'RebuiltPayloadSuperseded',
  url: 'https://access.example.com/solutions/7001234',
  message:
    'This release was rebuilt because of a packaging error, and the next z-stream carries the same fixes. ' +
    'Update to that release instead.',
  rules: [{ type: 'Always' }],
};

const CONDITION_KEYS = Object.keys(CONDITIONS);
const capitalize = (s) => s[0].toUpperCase() + s.slice(1);

/**
 * `nextRisk(kind, m)` and `nextArmRisk(kind, m)`: a new risk for minor `m` whose rules are PromQL
 * (`promql`), Always (`always`) or both (`both`).
 */
export function riskSupply(random) {
  const taken = { names: new Set([RESPIN.name]), bugs: new Set() };
  return {
    nextRisk: riskPool(PROBLEMS, 'bases', taken, random),
    nextArmRisk: riskPool(ARM64_PROBLEMS, 'arm', taken, random),
  };
}

/** A knowledge-base article now and then, else a bug number no other risk uses. */
function riskUrl(name, taken, { chance, randInt }) {
  if (chance(0.18, 'kb', name)) return `https://access.example.com/solutions/${randInt(6000000, 7999999, 'kbid', name)}`;
  let n = randInt(10000, 59999, 'bug', name);
  while (taken.bugs.has(n)) n++;
  taken.bugs.add(n);
  return `https://issues.example.com/browse/OCPBUGS-${n}`;
}

function defineRisk(problem, conditionKey, kind, m, taken, random) {
  const c = conditionKey ? CONDITIONS[conditionKey] : null;
  const name = c ? `${c.tag}${problem.name}` : problem.name;
  const phrase = c ? (typeof c.phrase === 'function' ? c.phrase(m) : c.phrase) : null;
  let message = phrase ? `${phrase}, ${problem.text}` : capitalize(problem.text);
  if (random.chance(0.5, 'second', name)) {
    message += ` ${SECOND_SENTENCES[random.randInt(0, SECOND_SENTENCES.length - 1, 'second-pick', name)]}`;
  }
  const rules = [];
  if (kind !== 'always') rules.push({ type: 'PromQL', promql: c.q(m) });
  if (kind !== 'promql') rules.push({ type: 'Always' });
  return { name, url: riskUrl(name, taken, random), message, rules };
}

function riskPool(problems, key, taken, random) {
  const natural = [];
  const other = [];
  for (const p of problems) {
    for (const c of CONDITION_KEYS) (p.conds.includes(c) ? natural : other).push([p, c]);
  }
  const pairs = [...random.shuffled(natural, key, 'natural'), ...random.shuffled(other, key, 'other')];
  const unconditional = random.shuffled(problems, key, 'always');
  let pairAt = 0;
  let unconditionalAt = 0;
  return function next(kind, m) {
    // An Always-only risk concerns every cluster: it carries no condition in its name.
    while (kind === 'always' && unconditionalAt < unconditional.length) {
      const p = unconditional[unconditionalAt++];
      if (taken.names.has(p.name)) continue;
      taken.names.add(p.name);
      return defineRisk(p, null, 'always', m, taken, random);
    }
    while (pairAt < pairs.length) {
      const [p, c] = pairs[pairAt++];
      const name = `${CONDITIONS[c].tag}${p.name}`;
      if (taken.names.has(name)) continue;
      taken.names.add(name);
      return defineRisk(p, c, kind, m, taken, random);
    }
    throw new Error('risk catalogue exhausted; add problems or conditions');
  };
}
