// ISO-8601 durations as feeders write them (P1W, PT48H, PT0H, P2D), in milliseconds.
const UNIT_MS = { Y: 365 * 86400e3, M: 30 * 86400e3, W: 7 * 86400e3, D: 86400e3, H: 3600e3, TM: 60e3, S: 1e3 } as const;
const DURATION =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

export function isIsoDuration(text: string): boolean {
  return DURATION.test(text);
}

/** Milliseconds of a duration (months count 30 days, years 365); undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const units = [UNIT_MS.Y, UNIT_MS.M, UNIT_MS.W, UNIT_MS.D, UNIT_MS.H, UNIT_MS.TM, UNIT_MS.S];
  return units.reduce((sum, unit, i) => sum + (m[i + 1] ? Number(m[i + 1]) * unit : 0), 0);
}
