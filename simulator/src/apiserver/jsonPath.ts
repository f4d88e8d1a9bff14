// The JSONPath of a CRD's additionalPrinterColumns, as the API server evaluates it: fields (`.a.b`, a dot in
// a key escaped as `\.`), indexes (`[0]`, `[*]`), slices (`[-1:]`, the last item, as a CRD shows its latest condition), quoted keys (`['a.b']`) and filters on a field
// (`[?(@.type=="Available")]`, with == or !=). The results are every value the path reaches.

type Step =
  | { field: string }
  | { index: number }
  | { all: true }
  | { slice: { start?: number; end?: number } }
  | { filter: { path: string[]; op: '==' | '!='; value: string } };

/** The steps of a path; an Error naming the path for one it does not understand. */
export function parseJsonPath(path: string): Step[] {
  const steps: Step[] = [];
  let i = path.startsWith('{') && path.endsWith('}') ? 1 : 0;
  const end = i === 1 ? path.length - 1 : path.length;
  const fail = (why: string): never => {
    throw new Error(`JSONPath ${path}: ${why}`);
  };
  while (i < end) {
    const c = path[i];
    if (c === '.') {
      i++;
      let field = '';
      while (i < end && path[i] !== '.' && path[i] !== '[') {
        if (path[i] === '\\' && i + 1 < end) i++;
        field += path[i++];
      }
      if (field === '') fail(`an empty field name at ${i}`);
      steps.push({ field });
    } else if (c === '[') {
      const close = path.indexOf(']', i);
      if (close < 0) fail('an unclosed [');
      const inner = path.slice(i + 1, close);
      i = close + 1;
      const quoted = /^'([^']*)'$|^"([^"]*)"$/.exec(inner);
      const filter = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)')\)$/.exec(inner);
      const slice = /^(-?\d*):(-?\d*)$/.exec(inner);
      if (inner === '*') steps.push({ all: true });
      else if (slice)
        steps.push({
          slice: { start: slice[1] ? Number(slice[1]) : undefined, end: slice[2] ? Number(slice[2]) : undefined },
        });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (quoted) steps.push({ field: quoted[1] ?? quoted[2]! });
      else if (filter)
        steps.push({
          filter: {
            path: filter[1]!.slice(1).split('.'),
            op: filter[2] as '==' | '!=',
            value: filter[3] ?? filter[4]!,
          },
        });
      else fail(`cannot read [${inner}]`);
    } else fail(`unexpected ${JSON.stringify(c)} at ${i}`);
  }
  return steps;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every value `path` reaches in `root`, in order. */
export function findResults(root: unknown, path: string): unknown[] {
  let current: unknown[] = [root];
  for (const step of parseJsonPath(path)) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('field' in step) {
        if (isObject(v) && Object.hasOwn(v, step.field)) next.push(v[step.field]);
      } else if ('index' in step) {
        if (Array.isArray(v)) {
          const at = step.index < 0 ? v.length + step.index : step.index;
          if (at >= 0 && at < v.length) next.push(v[at]);
        }
      } else if ('slice' in step) {
        if (Array.isArray(v)) next.push(...v.slice(step.slice.start ?? 0, step.slice.end ?? v.length));
      } else if ('all' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (isObject(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        const { path: fieldPath, op, value } = step.filter;
        for (const item of v) {
          let x: unknown = item;
          for (const f of fieldPath) x = isObject(x) ? x[f] : undefined;
          const text = x === undefined ? undefined : typeof x === 'string' ? x : JSON.stringify(x);
          if (text !== undefined && (op === '==') === (text === value)) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}
