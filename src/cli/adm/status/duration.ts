// Durations as `oc adm upgrade status` prints them: Go's time.Duration text ("1h59m0s", "3m29s") shortened
// by dropping zero tails ("1h59m", "14m", "2h"), and "now" for nothing at all.

/** Go's Duration.String() for a whole number of seconds (fractions are truncated first). */
function goDuration(ms: number): string {
  const negative = ms < 0;
  let s = Math.trunc(Math.abs(ms) / 1000);
  if (s === 0) return '0s';
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const text = h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
  return negative ? `-${text}` : text;
}

export function shortDuration(ms: number): string {
  const text = goDuration(ms);
  if (text === '0s') return 'now';
  if (text.endsWith('h0m0s')) return text.slice(0, -4);
  if (text.endsWith('m0s')) return text.slice(0, -2);
  return text;
}

/** Rounded as oc rounds an elapsed time: to the minute above ten minutes, else to the second. */
export const roundElapsed = (ms: number): number =>
  Math.abs(ms) > 10 * 60_000 ? Math.round(ms / 60_000) * 60_000 : Math.round(ms / 1000) * 1000;
