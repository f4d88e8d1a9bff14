// The results table: one row per number, with its target and whether it was met. A missed target is
// a finding, not a failure: only "could not run" makes the bench exit non-zero.

export class Report {
  rows = [];
  /** Steps that could not run, with why; any of them makes the exit code 1. */
  failures = [];

  /**
   * `target` is undefined (just report) or `{ op: '<=' | '>=', limit, text }`; `value` is a number
   * shown with `unit` and `digits`, or a string shown as is.
   */
  add(measure, input, value, { unit = '', digits = 1, target, note = '' } = {}) {
    const number = typeof value === 'number';
    const shown = !number
      ? value
      : Number.isFinite(value)
        ? `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}${note}`
        : 'n/a';
    let met = '—';
    if (target && number && Number.isFinite(value))
      met = (target.op === '<=' ? value <= target.limit : value >= target.limit) ? 'yes' : '**no**';
    this.rows.push({ measure, input, value: shown, target: target?.text ?? '—', met });
  }

  /** Rows for numbers a failed step did not produce, so the table shows the gap. */
  notRun(measures, input, reason, targets = {}) {
    for (const m of measures)
      this.rows.push({ measure: m, input, value: `not run: ${reason}`, target: targets[m]?.text ?? '—', met: '—' });
  }

  fail(step, err) {
    const message = err instanceof Error ? err.message : String(err);
    this.failures.push({ step, message });
    console.error(`bench: ${step} could not run: ${message}`);
  }

  markdown() {
    const esc = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
    const lines = ['| measure | input | value | target | met |', '| --- | --- | --- | --- | --- |'];
    for (const r of this.rows)
      lines.push(`| ${esc(r.measure)} | ${esc(r.input)} | ${esc(r.value)} | ${esc(r.target)} | ${r.met} |`);
    return lines.join('\n');
  }
}

export const atMost = (limit, unit) => ({ op: '<=', limit, text: `≤ ${limit}${unit ? ` ${unit}` : ''}` });
export const atLeast = (limit, unit) => ({ op: '>=', limit, text: `≥ ${limit}${unit ? ` ${unit}` : ''}` });

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
