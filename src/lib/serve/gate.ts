/**
 * One holder at a time, in arrival order. The serve process runs every answer and every
 * watcher sync through one gate: a sync updates a topic's index in memory before it saves it,
 * and an answer must never read it halfway.
 */

/** Thrown by Gate.run when the gate did not open within the caller's wait. */
export class GateBusy extends Error {
  constructor() {
    super('busy');
    this.name = 'GateBusy';
  }
}

export class Gate {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Runs `fn` once every earlier holder is done. With `waitMs`, gives up with GateBusy if the
   * gate is still closed after that long (fn then never runs).
   */
  run<T>(fn: () => Promise<T>, waitMs?: number): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    this.tail = previous.then(() => mine);
    if (waitMs === undefined) return previous.then(fn).finally(release);

    return new Promise<T>((resolve, reject) => {
      let gaveUp = false;
      const timer = setTimeout(() => {
        gaveUp = true;
        reject(new GateBusy());
      }, waitMs);
      void previous.then(async () => {
        clearTimeout(timer);
        if (gaveUp) return release(); // our turn came too late: pass it on at once
        try {
          resolve(await fn());
        } catch (err) {
          reject(err);
        } finally {
          release();
        }
      });
    });
  }
}
