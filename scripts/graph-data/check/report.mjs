// What the check prints: one line per check, `ok` or `FAIL`, and under a failure the problems it
// found, each naming the file it is about.

const SHOWN = 10;

export class CheckReport {
  failed = 0;
  total = 0;

  /** A check that passes when `problems` (strings that start with a file name) is empty. */
  problems(what, problems, note = '') {
    this.#line(problems.length === 0, what, note);
    this.#list(problems);
  }

  /** Something worth knowing that fails nothing: `items` (strings that start with a file name). */
  note(what, items) {
    if (!items.length) return;
    process.stdout.write(`note ${what} (${items.length})\n`);
    this.#list(items);
  }

  /** A check of a whole-tree property, such as a size target; `note` says what was measured. */
  expect(pass, what, note = '') {
    this.#line(pass, what, note);
  }

  /** The closing line and the exit status: 0 when every check passed, else 1. */
  finish() {
    const verdict = this.failed ? `FAILED (${this.failed} of ${this.total} checks)` : 'all passed';
    process.stdout.write(`check: ${verdict}\n`);
    return this.failed ? 1 : 0;
  }

  #list(items) {
    for (const item of items.slice(0, SHOWN)) process.stdout.write(`       ${item}\n`);
    if (items.length > SHOWN) process.stdout.write(`       ... and ${items.length - SHOWN} more\n`);
  }

  #line(pass, what, note) {
    this.total++;
    if (!pass) this.failed++;
    process.stdout.write(`${pass ? 'ok  ' : 'FAIL'} ${what}${note ? ` (${note})` : ''}\n`);
  }
}
