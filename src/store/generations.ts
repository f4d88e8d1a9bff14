// What a replica knows of the store's generations (PostgreSQL): one more with every write that changed
// something, from any replica. Notifications of writes arrive in commit order, but one may be lost (a
// listening connection that reconnects) and the periodic check may run ahead of them; the replica's own
// writes need no rebuild (it rebuilt when it wrote them). So each generation since the last one known is
// told apart: the replica's own, or another's. Another's missed, or seen only through the check, means
// building everything; the next one told of with its notice, that notice only.

/** What a replica must do about what it learnt: build again, with the notice of the write when it alone changed things. */
export interface Learnt {
  notice: string | undefined;
}

export class Generations {
  /** The replica's own writes that committed (or are committing) after `known`. */
  private readonly own = new Set<number>();

  constructor(
    /** The newest generation the replica's graph takes into account. */
    private known: number,
  ) {}

  /** A write of this replica is about to commit as `generation`. */
  committing(generation: number): void {
    this.own.add(generation);
  }

  /**
   * That write did not commit, or may not have (the connection lost during the commit): if it did, the
   * notification of it will be taken as another's, and the replica builds again.
   */
  failed(generation: number): void {
    this.own.delete(generation);
  }

  /** A notification of `generation`, with the writer's notice. */
  notified(generation: number, notice: string | undefined): Learnt | undefined {
    if (generation <= this.known) return undefined;
    const missed = this.othersBetween(this.known, generation - 1) > 0;
    const mine = this.own.has(generation);
    this.advance(generation);
    if (missed) return { notice: undefined };
    return mine ? undefined : { notice };
  }

  /** The generation check read `generation`. */
  checked(generation: number): Learnt | undefined {
    if (generation <= this.known) return undefined;
    const others = this.othersBetween(this.known, generation);
    this.advance(generation);
    return others > 0 ? { notice: undefined } : undefined;
  }

  /** How many generations in (from, to] are not this replica's own. */
  private othersBetween(from: number, to: number): number {
    let mine = 0;
    for (const g of this.own) if (g > from && g <= to) mine += 1;
    return Math.max(0, to - from - mine);
  }

  private advance(generation: number): void {
    this.known = generation;
    for (const g of this.own) if (g <= generation) this.own.delete(g);
  }
}
