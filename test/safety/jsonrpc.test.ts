/**
 * Hostile input to the MCP stdio transport's pure parts (issue 25, item 2): whatever bytes come
 * in, framing never throws and keeps every line whole across chunk boundaries, and every message
 * is either accepted or refused with a JSON-RPC error whose id is a string, a number or null.
 * The same families run against the real server in test/mcp/transport.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { idFromHead, LineFramer, rpcShapeError } from '../../src/lib/mcp/framing.js';

const piece = fc.oneof(
  fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', '\n', '\r\n', '"id"', '"jsonrpc":"2.0"', '"method"', '"params"', 'null', '1e999', '-0', '\u2028', '💥', '\u0000'),
  fc.string({ maxLength: 10 }),
);
const text = fc.array(piece, { maxLength: 30 }).map((p) => p.join(''));

describe('framing hostile byte streams', () => {
  it('never throws; the lines it returns are the input split at newlines, whatever the chunking', () => {
    fc.assert(
      fc.property(text, fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }), (input, cuts) => {
        const bytes = Buffer.from(input + '\n');
        const f = new LineFramer(1 << 20);
        const out: string[] = [];
        let at = 0;
        for (let i = 0; at < bytes.length; i++) {
          const n = cuts[i % cuts.length]!;
          for (const x of f.push(bytes.subarray(at, at + n))) out.push('line' in x ? x.line : '<overflow>');
          at += n;
        }
        expect(out).toEqual((input + '\n').split('\n').slice(0, -1).map((l) => l.replace(/\r$/, '')));
      }),
    );
  });

  it('a line past the limit is reported once, and the stream goes on', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 0, max: 200 }), (limit, extra) => {
        const f = new LineFramer(limit);
        const out = f.push(Buffer.from('x'.repeat(limit + 1 + extra) + '\n{"ok":1}\n'));
        expect(out).toEqual([{ overflow: { bytes: limit + 1 + extra, head: 'x'.repeat(Math.min(4096, limit + 1 + extra)) } }, ...(limit >= 8 ? [{ line: '{"ok":1}' }] : [{ overflow: { bytes: 8, head: '{"ok":1}' } }])]);
      }),
    );
  });
});

describe('JSON-RPC shapes from hostile JSON', () => {
  it('every value is accepted or refused with -32600 and a legal id; idFromHead never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ jsonrpc: fc.jsonValue(), id: fc.jsonValue(), method: fc.jsonValue(), params: fc.jsonValue() }, { requiredKeys: [] })), (value) => {
        const e = rpcShapeError(value);
        if (e) {
          expect(e.code).toBe(-32600);
          expect(e.id === null || typeof e.id === 'string' || typeof e.id === 'number').toBe(true);
        }
        const id = idFromHead(JSON.stringify(value) ?? '');
        expect(id === null || typeof id === 'string' || typeof id === 'number').toBe(true);
      }),
    );
  });

  it('idFromHead on hostile text', () => {
    fc.assert(
      fc.property(text, (head) => {
        const id = idFromHead(head);
        expect(id === null || typeof id === 'string' || typeof id === 'number').toBe(true);
      }),
    );
  });
});
