/** Helpers for the serve tests: raw socket exchanges and waiting for watcher events. */
import { createConnection } from 'node:net';

/** Sends raw lines and collects `count` answer lines (no client-side checks at all). */
export function rawExchange(socketPath: string, lines: string[], count: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ path: socketPath });
    let buf = '';
    const out: unknown[] = [];
    s.on('error', reject);
    s.on('connect', () => s.write(lines.join('')));
    s.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) !== -1) {
        out.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
      if (out.length >= count) {
        s.destroy();
        resolve(out);
      }
    });
  });
}

/** What the server reports about itself (ping), without any build or version check. */
export async function ping(socketPath: string): Promise<{ answered: Record<string, number>; watching: boolean; pid: number }> {
  const [res] = (await rawExchange(socketPath, [`${JSON.stringify({ id: 1, op: 'ping' })}\n`], 1)) as { result: never }[];
  return res!.result;
}

/** Collects events and lets a test wait for one. */
export class Events<E> {
  readonly list: E[] = [];
  private waiters: { pred: (e: E) => boolean; resolve: (e: E) => void }[] = [];

  readonly push = (e: E): void => {
    this.list.push(e);
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred(e)) return true;
      w.resolve(e);
      return false;
    });
  };

  /** The first event matching `pred` from now on (or already seen, with `past`). */
  wait(pred: (e: E) => boolean, past = false): Promise<E> {
    const seen = past ? this.list.find(pred) : undefined;
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
}
