// The lines a run prints, kept for its engine to read when it asks: the runner pushes each line
// here instead of calling back into the engine (docs/architecture.md, "The call path of a job").

/** Enough for every progress line printed between two reads (a second apart) of any engine. */
const DEFAULT_CAPACITY = 256;

/**
 * A bounded queue of lines: the runner pushes, the engine drains. Past `capacity` unread lines the
 * oldest are dropped and counted, so an engine that floods its output keeps memory flat.
 */
export class LineBuffer {
  private lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  /** Lines dropped unread because the buffer was full. */
  dropped = 0;
  /** The stream closed: no line comes after the ones still held. */
  ended = false;

  /**
   * `only` keeps the lines it matches and lets the rest pass unkept and uncounted (no `g` flag): a
   * reader that counts lines of one kind then knows every dropped line was one of them.
   */
  constructor(
    readonly capacity = DEFAULT_CAPACITY,
    private readonly only?: RegExp,
  ) {}

  push(line: string): void {
    if (this.only && !this.only.test(line)) return;
    if (this.waiting) {
      this.settle(line);
      return;
    }
    this.lines.push(line);
    if (this.lines.length > this.capacity) {
      this.lines.shift();
      this.dropped++;
    }
  }

  end(): void {
    this.ended = true;
    this.settle(undefined);
  }

  /** The lines pushed since the last read, oldest first. */
  drain(): string[] {
    const lines = this.lines;
    this.lines = [];
    return lines;
  }

  /**
   * The next line, taken off the buffer, once there is one; undefined once the stream has ended
   * without it. One reader at a time: a second wait before the first settles is refused.
   */
  next(): Promise<string | undefined> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift());
    if (this.ended) return Promise.resolve(undefined);
    if (this.waiting) return Promise.reject(new Error('a line is already awaited'));
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** Waits for a line equal to `text`, dropping the ones before it: false when the stream ends first. */
  async until(text: string): Promise<boolean> {
    for (;;) {
      const line = await this.next();
      if (line === undefined) return false;
      if (line === text) return true;
    }
  }

  private settle(line: string | undefined): void {
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.(line);
  }
}
