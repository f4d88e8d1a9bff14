// Label selectors as the Kubernetes API reads them from ?labelSelector=.
import { KubeError } from './kubeError.js';

export type LabelSelector = (labels: Record<string, string>) => boolean;
export const matchAll: LabelSelector = () => true;

/** Parses a label selector: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, comma-joined. */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  if (!text) return matchAll;
  const tests: LabelSelector[] = [];
  for (const part of text.match(/(?:[^,(]+(?:\([^)]*\))?)+/g) ?? []) {
    const p = part.trim();
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p))) {
      const [, key, op, list] = m as unknown as [string, string, string, string];
      const values = list.split(',').map((v) => v.trim());
      tests.push(
        op === 'in' ? (l) => key in l && values.includes(l[key]!) : (l) => !(key in l) || !values.includes(l[key]!),
      );
    } else if ((m = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/.exec(p))) {
      const [, key, op, value] = m as unknown as [string, string, string, string];
      tests.push(op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value);
    } else if ((m = /^!([\w./-]+)$/.exec(p))) {
      const key = m[1]!;
      tests.push((l) => !(key in l));
    } else if ((m = /^([\w./-]+)$/.exec(p))) {
      const key = m[1]!;
      tests.push((l) => key in l);
    } else {
      throw new KubeError(400, 'BadRequest', `unable to parse requirement: ${p}`);
    }
  }
  return (labels) => tests.every((t) => t(labels));
}
