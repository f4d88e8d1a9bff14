// A deadline as an abort signal: the registry client's per-request deadline and a source's per-read
// deadline both end their work by aborting with an error that names the flag which set the limit.

export interface Deadline {
  /** Aborts, with the error `reason()` made, once the time is up. */
  signal: AbortSignal;
  /** Stops the timer; the signal never aborts after this. */
  clear(): void;
}

/** A signal that aborts after `ms` with `reason()`; its timer does not keep the process alive. */
export function deadline(ms: number, reason: () => Error): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), ms);
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
