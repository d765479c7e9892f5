/** MCP clients for the end-to-end tests: the SDK's own Client over stdio, and a raw JSON-RPC one. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

import { BIN, binEnv } from './fixtures.js';

/**
 * How long a wait here may last before it fails with what the server said: a hang net below
 * vitest's (vitest.config.ts), not a speed check. A call that takes 4 s quiet can take a minute
 * at load 10-25, and must still pass.
 */
const HANG_NET_MS = 600_000;

export type ElicitReply = (message: string, schema: unknown) => ElicitResult | Promise<ElicitResult>;

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  /** Messages the operator was shown. */
  elicited: string[];
  /** What the next elicitation answers (changeable between calls). */
  reply: { next: ElicitReply };
  close(): Promise<void>;
}

/** The built binary's `mcp` over stdio with the SDK Client; `elicitation` declares the capability. */
export async function connect(root: string, opts: { elicitation?: boolean; env?: Record<string, string>; args?: string[] } = {}): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', root, ...(opts.args ?? [])],
    env: binEnv(opts.env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'vitest', version: '1.0.0' }, { capabilities: opts.elicitation ? { elicitation: {} } : {} });
  const elicited: string[] = [];
  const reply: Connected['reply'] = { next: () => ({ action: 'cancel' }) };
  if (opts.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const params = req.params as { message: string; requestedSchema?: unknown };
      elicited.push(params.message);
      return reply.next(params.message, params.requestedSchema);
    });
  }
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    elicited,
    reply,
    close: () => client.close(),
  };
}

export interface ToolAnswer {
  isError: boolean;
  text: string;
  data: any;
}

export async function call(c: Connected, name: string, args: Record<string, unknown>, opts: { onprogress?: (p: { progress: number; message?: string }) => void } = {}): Promise<ToolAnswer> {
  const r = (await c.client.callTool({ name, arguments: args }, undefined, { timeout: HANG_NET_MS, ...(opts.onprogress ? { onprogress: opts.onprogress } : {}) })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: unknown;
  };
  return { isError: r.isError === true, text: r.content.map((x) => x.text).join('\n'), data: r.structuredContent };
}

/**
 * A client written by hand: newline-delimited JSON-RPC 2.0 over the child's stdio, so the server
 * is not only tested against the SDK's own client. Every stdout line must be a JSON-RPC message.
 */
export class RawClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = '';
  private nextId = 1;
  private waiting = new Map<number, (msg: any) => void>();
  private buf = '';
  readonly exited: Promise<number | null>;

  /** Every message received, in order. */
  readonly messages: any[] = [];

  constructor(root: string, env: Record<string, string> = {}, args: string[] = []) {
    this.child = spawn(process.execPath, [BIN, 'mcp', '--root', root, ...args], { env: binEnv(env) });
    this.exited = new Promise((r) => this.child.on('close', (code) => r(code)));
    this.child.stderr.on('data', (d) => (this.stderr += d));
    this.child.stdout.on('data', (d: Buffer) => {
      this.buf += d.toString('utf8');
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        this.lines.push(line);
        const msg = JSON.parse(line); // throws (fails the test) on anything that is not JSON
        this.messages.push(msg);
        if (msg.id !== undefined && this.waiting.has(msg.id)) {
          this.waiting.get(msg.id)!(msg);
          this.waiting.delete(msg.id);
        }
      }
    });
  }

  request(method: string, params: unknown = {}): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method}; stderr: ${this.stderr}`)), HANG_NET_MS);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  /** Sends one raw line (a newline is added). */
  writeLine(text: string): void {
    this.child.stdin.write(text + '\n');
  }

  /** Sends a request without waiting; returns its id. */
  send(method: string, params: unknown = {}): number {
    const id = this.nextId++;
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return id;
  }

  /** The first message (already received or to come) that `pred` accepts; fails after `timeoutMs`. */
  waitFor(pred: (msg: any) => boolean, what: string, timeoutMs = HANG_NET_MS): Promise<any> {
    return this.until(() => this.messages.find(pred), what, timeoutMs);
  }

  /** Resolves with the first truthy value of `probe`, polled as data arrives; fails after `timeoutMs`. */
  until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = HANG_NET_MS): Promise<T> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const tick = (): void => {
        const v = probe();
        if (v) return resolve(v);
        if (Date.now() - started > timeoutMs) return reject(new Error(`waited ${timeoutMs} ms for ${what}; stderr: ${this.stderr.slice(-2000)}`));
        setTimeout(tick, 20);
      };
      tick();
    });
  }

  notify(method: string, params: unknown = {}): void {
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  }

  async initialize(): Promise<any> {
    const r = await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-jsonrpc', version: '0.0.1' } });
    this.notify('notifications/initialized');
    return r;
  }
}
