/**
 * Progress for people, on stderr. On a terminal: one live line per step (spinner, the step's
 * latest message, rate and ETA once a counted phase runs long), then ✔ or ✖ with the time.
 * Without a terminal (a log, a pipe): one line per finished step, a rare "still working" line on
 * long steps, never a line per chunk. A failed step shows ✖ and its title only: the error itself
 * is printed once, by whoever reports the failure.
 */
import type { Progress } from '../lib/progress.js';
import { paint } from './render.js';

/** "0.4s", "12s", "3m05s". */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Rate and ETA for a counted phase ("chunk 120/1413"), or '' while too early to tell (under
 * `minMs` or no progress yet). `startDone` is the count when the phase began being timed.
 */
export function rateAndEta(done: number, total: number, elapsedMs: number, minMs = 2000): string {
  if (elapsedMs < minMs || done <= 0 || total <= 0) return '';
  const perSec = done / (elapsedMs / 1000);
  const left = Math.max(0, total - done);
  const rate = perSec >= 10 ? `${Math.round(perSec)}/s` : `${perSec.toFixed(1)}/s`;
  return `${rate}, ETA ${formatDuration((left / perSec) * 1000)}`;
}

/** A step's result that says it failed without throwing (a source that could not be fetched). */
export function stepFailed(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  const v = value as { ok?: unknown; kind?: unknown };
  return v.ok === false || v.kind === 'failed';
}

const COUNTED = /^(.*?)(\d+)\/(\d+)\s*$/;
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Terminal width for one-line output; a terminal that reports 0 columns gets 80, not 1. */
export function usableColumns(columns: number | undefined): number {
  return columns && columns >= 20 ? columns : 80;
}

/** Messages already shown as warnings, so the final error can point at them instead of repeating them. */
export const warned: string[] = [];

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr, opts: { tty?: boolean; quietMs?: number } = {}): Progress {
  let active = false;
  const tty = opts.tty ?? Boolean(stream.isTTY);
  const quietMs = opts.quietMs ?? 15_000;
  const ok = paint('green', '✔', stream);
  const bad = paint('red', '✖', stream);
  return {
    async task<T>(title: string, fn: (update: (m: string) => void) => Promise<T>): Promise<T> {
      const started = Date.now();
      let message = '';
      let phase = '';
      let phaseStart = started;
      let lastLog = started;
      let frame = 0;
      const describe = (): string => {
        const m = COUNTED.exec(message);
        if (!m) return message;
        const extra = rateAndEta(Number(m[2]), Number(m[3]), Date.now() - phaseStart);
        return extra ? `${message} (${extra})` : message;
      };
      const draw = (): void => {
        const line = `${FRAMES[frame++ % FRAMES.length]} ${title}${message ? ` · ${describe()}` : ''}`;
        stream.write(`\r\x1b[2K${line.slice(0, usableColumns(stream.columns) - 1)}`);
      };
      active = true;
      const timer = tty ? setInterval(draw, 120) : null;
      timer?.unref();
      if (tty) draw();
      const update = (m: string): void => {
        message = m.replace(/\s+/g, ' ').trim();
        const p = COUNTED.exec(message)?.[1] ?? message;
        if (p !== phase) {
          phase = p;
          phaseStart = Date.now();
        }
        // In a log, a long step says it is still working now and then, with rate and ETA.
        if (!tty && Date.now() - lastLog >= quietMs) {
          lastLog = Date.now();
          stream.write(`  … ${title}: ${describe()}\n`);
        }
      };
      const finish = (mark: string, suffix = ''): void => {
        if (timer) clearInterval(timer);
        active = false;
        stream.write(`${tty ? '\r\x1b[2K' : ''}${mark} ${title}${suffix}\n`);
      };
      try {
        const value = await fn(update);
        finish(stepFailed(value) ? bad : ok, stepFailed(value) ? '' : ` (${formatDuration(Date.now() - started)})`);
        return value;
      } catch (err) {
        finish(bad);
        throw err;
      }
    },
    warn(message: string): void {
      warned.push(message);
      stream.write(`${tty && active ? '\r\x1b[2K' : ''}${paint('yellow', 'Warning', stream)}: ${message}\n`);
    },
  };
}
