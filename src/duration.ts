// Durations as cincy reads and writes them, always in milliseconds. Each written form is the one its
// readers already know, so there is one parser per form and one formatter per form:
//
//   read   Go's form, `90s`, `1h30m`, `250ms`            settings (--scrape-interval), mock-cluster scenarios
//          ISO 8601, `P1W`, `PT48H`                      a channel feeder's delay in graph-data
//          one number and one unit, `30m`, `7d`, `3600`  `cincy token create --ttl`
//   write  kubectl's ages, `45s`, `5m30s`, `3d4h`        what `cincy get` prints, as kubectl would
//          `oc adm upgrade status`'s, `1h59m`, `now`     what `cincy adm upgrade status` prints, as oc would
//          plain seconds, `2.5 s`                        in messages

/** Go's form: `90s`, `3m`, `1h30m`, `250ms` into milliseconds; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(text.trim());
  if (!m || text.trim() === '') return undefined;
  const [, h, min, s, ms] = m;
  return (Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0)) * 1000 + Number(ms ?? 0);
}

// ISO-8601 durations as feeders write them (P1W, PT48H, PT0H, P2D).
const ISO_UNIT_MS = {
  Y: 365 * 86400e3,
  M: 30 * 86400e3,
  W: 7 * 86400e3,
  D: 86400e3,
  H: 3600e3,
  TM: 60e3,
  S: 1e3,
} as const;
const ISO_DURATION =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

export function isIsoDuration(text: string): boolean {
  return ISO_DURATION.test(text);
}

/** ISO 8601: milliseconds of `P1W`, `PT48H`… (months count 30 days, years 365); undefined when it is not one. */
export function parseIsoDuration(text: string): number | undefined {
  const m = ISO_DURATION.exec(text);
  if (!m) return undefined;
  const units = [
    ISO_UNIT_MS.Y,
    ISO_UNIT_MS.M,
    ISO_UNIT_MS.W,
    ISO_UNIT_MS.D,
    ISO_UNIT_MS.H,
    ISO_UNIT_MS.TM,
    ISO_UNIT_MS.S,
  ];
  return units.reduce((sum, unit, i) => sum + (m[i + 1] ? Number(m[i + 1]) * unit : 0), 0);
}

const UNIT_MS = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** One whole number and one unit: `90s`, `30m`, `1h`, `7d`, or a plain number of seconds; undefined otherwise. */
export function parseSingleUnitDuration(text: string): number | undefined {
  const m = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** An age as kubectl prints it (apimachinery's HumanDuration): 45s, 5m30s, 22m, 3h10m, 22h, 3d4h, 120d, 2y30d. */
export function formatAge(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** Go's Duration.String() for a whole number of seconds (fractions are truncated first): 1h59m0s, 3m29s. */
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

/** As `oc adm upgrade status` prints a duration: Go's text without zero tails (1h59m, 14m, 2h), `now` for none. */
export function formatOcDuration(ms: number): string {
  const text = goDuration(ms);
  if (text === '0s') return 'now';
  if (text.endsWith('h0m0s')) return text.slice(0, -4);
  if (text.endsWith('m0s')) return text.slice(0, -2);
  return text;
}

/** Rounded as oc rounds an elapsed time before printing it: to the minute above ten minutes, else to the second. */
export const roundElapsedAsOc = (ms: number): number =>
  Math.abs(ms) > 10 * 60_000 ? Math.round(ms / 60_000) * 60_000 : Math.round(ms / 1000) * 1000;

/** Plain seconds for a message: `2.5 s`, `30 s`. */
export const formatSeconds = (ms: number): string => `${ms / 1000} s`;
