// The list answers made from one read model, kept as bytes by request: a page asked again (a
// dashboard polling, a client asking for the first page over and over) is bytes already made, as a
// graph view is. Bounded in answers and bytes: past either, it starts over.
const MAX_ANSWERS = 512;
const MAX_BYTES = 64 * 1024 * 1024;

export class AnswerCache {
  private readonly answers = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    /** What the answers were made from; a cache serves one model only. */
    readonly model: object,
  ) {}

  /** The answer to `request`, made by `make` (JSON text) the first time; what `make` throws is not kept. */
  answer(request: string, make: () => string): Buffer {
    let bytes = this.answers.get(request);
    if (!bytes) {
      bytes = Buffer.from(make());
      if (this.answers.size >= MAX_ANSWERS || this.bytes + bytes.length > MAX_BYTES) {
        this.answers.clear();
        this.bytes = 0;
      }
      this.answers.set(request, bytes);
      this.bytes += bytes.length;
    }
    return bytes;
  }
}
