/**
 * The stdio transport of `tkoma-ref mcp`, in place of the SDK's StdioServerTransport (see
 * framing.ts for why): linear line framing, a line past the limit answered with a JSON-RPC error
 * and a line on stderr (the server stays up), and parse errors and invalid requests answered as
 * JSON-RPC 2.0 says instead of dropped. It implements the SDK's Transport interface.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { idFromHead, LineFramer, PARSE_ERROR, type RpcError, rpcShapeError } from './framing.js';

/** The longest line read: the SDK's limit, kept (a 10 MiB tool call is already absurd). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly framer: LineFramer;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly log: (message: string) => void = (m) => process.stderr.write(`tkoma-ref mcp: ${m}\n`),
    maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.framer = new LineFramer(maxLineBytes);
  }

  private readonly ondata = (chunk: Buffer | string): void => {
    for (const framed of this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
      if ('overflow' in framed) {
        const { bytes, head } = framed.overflow;
        const id = idFromHead(head);
        this.log(`refused a message of ${bytes} bytes (the limit is ${this.framer.maxBytes} bytes per line)${id === null ? '' : ` (id ${JSON.stringify(id)})`}`);
        this.refuse({ code: -32600, message: `Invalid Request: the message is ${bytes} bytes; at most ${this.framer.maxBytes} bytes per line`, id });
        continue;
      }
      if (framed.line.trim() === '') continue;
      this.receive(framed.line);
    }
  };

  private readonly onerr = (error: Error): void => this.onerror?.(error);
  private readonly onend = (): void => void this.close();

  private receive(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.refuse({ code: PARSE_ERROR, message: `Parse error: ${err instanceof Error ? err.message : String(err)}`, id: null });
      return;
    }
    const shape = rpcShapeError(value);
    if (shape) return this.refuse(shape);
    const checked = JSONRPCMessageSchema.safeParse(value);
    if (!checked.success) {
      const id = (value as { id?: string | number }).id ?? null;
      return this.refuse({ code: -32600, message: `Invalid Request: ${checked.error.issues[0]?.message ?? 'not a JSON-RPC message'}`, id });
    }
    try {
      this.onmessage?.(checked.data);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private refuse(e: RpcError): void {
    this.send({ jsonrpc: '2.0', id: e.id, error: { code: e.code, message: e.message } } as unknown as JSONRPCMessage).catch(() => undefined);
  }

  async start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('error', this.onerr);
    this.input.on('end', this.onend);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(JSON.stringify(message) + '\n')) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.ondata);
    this.input.off('error', this.onerr);
    this.input.off('end', this.onend);
    // Nobody else reads stdin: stop it, so it keeps no handle open (the SDK's transport did the same).
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.onclose?.();
  }
}
