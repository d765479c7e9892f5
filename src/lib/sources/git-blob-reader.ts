/**
 * One long-lived `git cat-file --batch-command --buffer` for a whole fetch. A new `cat-file
 * --batch` per batch of 256 files cost a process start (and a pack index load) each time: about
 * 20 processes for a 5,000-file topic. The process answers one request at a time; `flush` makes
 * it send everything asked so far, so a request never waits for the end of input.
 *
 * Never ask for a blob that is not in the local object store: in a partial clone git would
 * download it on its own, one request per blob. Packs that a later `git fetch` adds are found
 * (git rescans the pack folder before it calls an object missing).
 */
import type { ChildProcess } from 'node:child_process';
import { DEFAULT_LOCAL_TIMEOUT_MS, GitFailure, killGroup, spawnGit } from './git-run.js';

const ARGS = ['cat-file', '--batch-command', '--buffer'];
const MAX_STDERR_CHARS = 64 * 1024;

interface Request {
  oids: string[];
  /** Index in `oids` of the next answer expected. */
  next: number;
  headBytes: number;
  blobs: Map<string, Buffer>;
  resolve: (blobs: Map<string, Buffer>) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** Parses the answers of one request as they arrive: a header line, then `size` bytes and "\n". */
class AnswerParser {
  private head: Buffer = Buffer.alloc(0);
  /** The body being collected: its oid, size, the chunks so far and their length. */
  private body: { oid: string; size: number; chunks: Buffer[]; have: number } | null = null;

  /** Feeds a chunk; calls `answer` for each complete answer (content null when git says missing). */
  push(chunk: Buffer, answer: (oid: string, content: Buffer | null) => void): void {
    let data = chunk;
    while (data.length > 0) {
      if (this.body) {
        // The content and its closing newline.
        const want = this.body.size + 1 - this.body.have;
        const take = data.subarray(0, Math.min(want, data.length));
        this.body.chunks.push(take);
        this.body.have += take.length;
        data = data.subarray(take.length);
        if (this.body.have === this.body.size + 1) {
          const { oid, size, chunks } = this.body;
          this.body = null;
          const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          answer(oid, all.subarray(0, size));
        }
        continue;
      }
      const nl = data.indexOf(10);
      if (nl < 0) {
        this.head = Buffer.concat([this.head, data]);
        return;
      }
      const line = Buffer.concat([this.head, data.subarray(0, nl)]).toString('utf8');
      this.head = Buffer.alloc(0);
      data = data.subarray(nl + 1);
      const [oid, type, size] = line.split(' ');
      if (type === 'missing' || type === 'ambiguous' || size === undefined) answer(oid ?? '', null);
      else this.body = { oid: oid!, size: Number(size), chunks: [], have: 0 };
    }
  }
}

export class BlobReader {
  private readonly child: ChildProcess;
  private readonly parser = new AnswerParser();
  private current: Request | null = null;
  private stderr = '';
  /** Set when the process is gone: every later request fails with it. */
  private dead: Error | null = null;
  private readonly exited: Promise<void>;

  constructor(cwd: string, private readonly timeoutMs = DEFAULT_LOCAL_TIMEOUT_MS) {
    this.child = spawnGit(ARGS, { cwd });
    this.child.stdout!.on('data', (d: Buffer) => this.onData(d));
    this.child.stderr!.on('data', (d: Buffer) => {
      if (this.stderr.length < MAX_STDERR_CHARS) this.stderr += d.toString('utf8');
    });
    this.child.stdin!.on('error', () => {
      /* git exited early; the close handler tells why */
    });
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.fail(err);
        resolve();
      });
      this.child.on('close', (code) => {
        this.fail(new GitFailure(ARGS, this.stderr, code, false));
        resolve();
      });
    });
  }

  /**
   * Contents of blobs known to be present (or their first `headBytes` bytes). One request at a
   * time: callers await each before the next. Objects git reports missing are left out.
   */
  read(oids: string[], headBytes = Number.POSITIVE_INFINITY): Promise<Map<string, Buffer>> {
    if (oids.length === 0) return Promise.resolve(new Map());
    if (this.dead) return Promise.reject(this.dead);
    if (this.current) return Promise.reject(new Error('BlobReader: one request at a time'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new GitFailure(ARGS, this.stderr, null, true));
        killGroup(this.child);
      }, this.timeoutMs);
      this.current = { oids, next: 0, headBytes, blobs: new Map(), resolve, reject, timer };
      this.child.stdin!.write(oids.map((o) => `contents ${o}\n`).join('') + 'flush\n');
    });
  }

  /** Ends the process: closes its input and waits for it; kills it when a request failed. */
  async close(): Promise<void> {
    if (this.dead) killGroup(this.child);
    else this.child.stdin!.end();
    await this.exited;
  }

  private onData(chunk: Buffer): void {
    this.parser.push(chunk, (oid, content) => {
      const req = this.current;
      if (!req) return; // nothing asked: cannot happen with one request at a time
      if (content) req.blobs.set(oid, content.length > req.headBytes ? content.subarray(0, req.headBytes) : content);
      req.next += 1;
      if (req.next === req.oids.length) {
        clearTimeout(req.timer);
        this.current = null;
        req.resolve(req.blobs);
      }
    });
  }

  private fail(err: Error): void {
    this.dead ??= err;
    const req = this.current;
    if (!req) return;
    clearTimeout(req.timer);
    this.current = null;
    req.reject(this.dead);
  }
}
