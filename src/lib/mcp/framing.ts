/**
 * Newline-delimited JSON-RPC on a byte stream, checked before the SDK sees it. The SDK's own
 * stdio reader joins every chunk to everything buffered so far and searches it all again for a
 * newline (quadratic: a 9 MB line took 7 s, and every other call waited), closes the transport on
 * a line past its limit, and drops a message that is not valid JSON-RPC without an answer. Here a
 * chunk is scanned once, a line is joined once, a line past the limit is skipped to its end, and
 * every message that cannot be served gets the JSON-RPC error the spec gives it. Pure.
 */

/** What one line of input turned out to be. */
export type Framed = { line: string } | { overflow: { bytes: number; head: string } };

/** Kept of a line past the limit, to find its id for the error answer. */
const HEAD_BYTES = 4096;

export class LineFramer {
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside a line past the limit: its bytes are counted, not kept (only its head). */
  private skipping: { bytes: number; head: Buffer } | null = null;

  constructor(readonly maxBytes: number) {}

  /** The lines this chunk completes, in order. */
  push(chunk: Buffer): Framed[] {
    const out: Framed[] = [];
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(from, end));
      if (nl === -1) break;
      out.push(this.finish());
      from = nl + 1;
    }
    return out;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      const s = this.skipping;
      s.bytes += piece.length;
      if (s.head.length < HEAD_BYTES) s.head = Buffer.concat([s.head, piece.subarray(0, HEAD_BYTES - s.head.length)]);
      return;
    }
    if (this.size + piece.length > this.maxBytes) {
      const head = Buffer.concat([...this.parts, piece.subarray(0, Math.max(0, HEAD_BYTES - this.size))]).subarray(0, HEAD_BYTES);
      this.skipping = { bytes: this.size + piece.length, head };
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
  }

  private finish(): Framed {
    if (this.skipping) {
      const { bytes, head } = this.skipping;
      this.skipping = null;
      return { overflow: { bytes, head: head.toString('utf8') } };
    }
    const line = (this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size)).toString('utf8');
    this.parts = [];
    this.size = 0;
    return { line: line.endsWith('\r') ? line.slice(0, -1) : line };
  }
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export interface RpcError {
  code: number;
  message: string;
  /** The request's id when it could be read, else null (JSON-RPC 2.0, section 5). */
  id: string | number | null;
}

const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * The top-level `"id"` of a JSON object's text, read from its start only (a line too long to
 * parse): the value of the first `id` key at depth 1, if it comes before the text runs out.
 */
export function idFromHead(head: string): string | number | null {
  let depth = 0;
  let i = 0;
  const n = head.length;
  while (i < n) {
    const c = head[i]!;
    if (c === '"') {
      const m = /^"((?:[^"\\]|\\.)*)"/.exec(head.slice(i, i + 1024));
      if (!m) return null;
      i += m[0].length;
      if (depth === 1 && m[1] === 'id') {
        const v = /^\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(head.slice(i, i + 1100));
        if (!v) return null;
        try {
          const id: unknown = JSON.parse(v[1]!);
          return isId(id) ? id : null;
        } catch {
          return null;
        }
      }
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    i++;
  }
  return null;
}

const invalid = (message: string, id: string | number | null): RpcError => ({ code: INVALID_REQUEST, message: `Invalid Request: ${message}`, id });

/**
 * A parsed line checked against JSON-RPC 2.0 as MCP uses it: one object (MCP 2025-06-18 has no
 * batches), `"jsonrpc": "2.0"`, a string method with object params, or a response. Null when it
 * is one; else the error to answer.
 */
export function rpcShapeError(value: unknown): RpcError | null {
  if (Array.isArray(value)) return invalid('batches are not supported: send one message per line', null);
  if (typeof value !== 'object' || value === null) return invalid('a message is a JSON object', null);
  const m = value as Record<string, unknown>;
  const hasId = 'id' in m;
  if (hasId && !isId(m.id)) return invalid('`id` must be a string or a number', null);
  const id = hasId ? (m.id as string | number) : null;
  if (m.jsonrpc !== '2.0') return invalid('`jsonrpc` must be "2.0"', id);
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') return invalid('`method` must be a non-empty string', id);
    if ('params' in m && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) return invalid('`params` must be an object', id);
    return null;
  }
  if (!hasId) return invalid('neither a request (no `method`) nor a response (no `id`)', null);
  if (!('result' in m) && !('error' in m)) return invalid('a response needs `result` or `error`', id);
  return null;
}
