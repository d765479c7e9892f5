/** The pure parts of the stdio transport (framing.ts) and of the watcher's lag (LagBook). */
import { describe, expect, it } from 'vitest';

import { idFromHead, LineFramer, rpcShapeError } from '../../src/lib/mcp/framing.js';
import { LagBook } from '../../src/lib/watch.js';

describe('LineFramer', () => {
  it('cuts lines across chunks, strips \\r, keeps a partial line for the next chunk', () => {
    const f = new LineFramer(100);
    expect(f.push(Buffer.from('{"a":1}\r\n{"b"'))).toEqual([{ line: '{"a":1}' }]);
    expect(f.push(Buffer.from(':2}\n\n'))).toEqual([{ line: '{"b":2}' }, { line: '' }]);
  });

  it('keeps multi-byte characters split between chunks whole', () => {
    const f = new LineFramer(100);
    const bytes = Buffer.from('"é€"\n');
    expect(f.push(bytes.subarray(0, 2))).toEqual([]);
    expect(f.push(bytes.subarray(2))).toEqual([{ line: '"é€"' }]);
  });

  it('skips a line past the limit to its end, reports its size and head, then goes on', () => {
    const f = new LineFramer(10);
    expect(f.push(Buffer.from('{"id":7,"x":"'))).toEqual([]);
    const out = f.push(Buffer.from('yyyyyyyy"}\n{"ok":1}\n'));
    expect(out).toEqual([{ overflow: { bytes: 23, head: '{"id":7,"x":"yyyyyyyy"}' } }, { line: '{"ok":1}' }]);
  });

  it('joins a 9 MB line of 64 KiB chunks once, at its newline', () => {
    const f = new LineFramer(10 * 1024 * 1024);
    const chunk = Buffer.alloc(65536, 0x61);
    for (let i = 0; i < 140; i++) expect(f.push(chunk)).toEqual([]);
    const [line] = f.push(Buffer.from('\n'));
    expect((line as { line: string }).line.length).toBe(140 * 65536);
  });
});

describe('idFromHead', () => {
  it('finds the top-level id, not one inside params', () => {
    expect(idFromHead('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"x"')).toBe(12);
    expect(idFromHead('{"jsonrpc":"2.0","params":{"id":5,"q":"aaaa')).toBeNull();
    expect(idFromHead('{"method":"x","id":"a\\"b","params"')).toBe('a"b');
    expect(idFromHead('{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"question":"qqqq')).toBeNull();
    expect(idFromHead('{"id":{"nested":1}}')).toBeNull();
  });
});

describe('rpcShapeError', () => {
  it('accepts requests, notifications and responses', () => {
    expect(rpcShapeError({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeNull();
    expect(rpcShapeError({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeNull();
    expect(rpcShapeError({ jsonrpc: '2.0', id: 'a', result: {} })).toBeNull();
    expect(rpcShapeError({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } })).toBeNull();
  });

  it('refuses what JSON-RPC 2.0 as MCP uses it refuses, with the id when it can be read', () => {
    expect(rpcShapeError([{ jsonrpc: '2.0', id: 1, method: 'x' }])).toMatchObject({ code: -32600, id: null });
    expect(rpcShapeError({ jsonrpc: '1.0', id: 3, method: 'x' })).toMatchObject({ code: -32600, id: 3 });
    expect(rpcShapeError({ id: 4, method: 'x' })).toMatchObject({ code: -32600, id: 4 });
    expect(rpcShapeError({ jsonrpc: '2.0', id: 5, method: 7 })).toMatchObject({ code: -32600, id: 5 });
    expect(rpcShapeError({ jsonrpc: '2.0', id: 6, method: 'x', params: 'all' })).toMatchObject({ code: -32600, id: 6 });
    expect(rpcShapeError({ jsonrpc: '2.0', id: true, method: 'x' })).toMatchObject({ code: -32600, id: null });
    expect(rpcShapeError({ jsonrpc: '2.0', id: 8 })).toMatchObject({ code: -32600, id: 8 });
    expect(rpcShapeError(null)).toMatchObject({ code: -32600, id: null });
  });
});

describe('LagBook', () => {
  it('a change waits, then runs, then is gone when the sync that began after it ends', () => {
    const b = new LagBook();
    expect(b.lag()).toBeNull();
    b.changed('a', 100);
    b.changed('a', 150); // the earliest counts
    expect(b.lag(['a'])).toEqual({ since: 100, syncing: false });
    expect(b.lag(['b'])).toBeNull();
    b.started(['a'], false);
    expect(b.lag(['a'])).toEqual({ since: 100, syncing: true });
    b.changed('a', 200); // during the sync: it may have been scanned already, so it waits for the next
    b.ended(false);
    expect(b.lag(['a'])).toEqual({ since: 200, syncing: false });
    b.started(['a'], false);
    b.ended(false);
    expect(b.lag()).toBeNull();
  });

  it('a reconcile at start covers every topic until it ends', () => {
    const b = new LagBook();
    b.reconcileDue(50);
    expect(b.lag(['x'])).toEqual({ since: 50, syncing: false });
    b.changed('y', 60);
    b.started([], true);
    expect(b.lag(['y'])).toEqual({ since: 50, syncing: true });
    b.ended(true);
    expect(b.lag(['x', 'y'])).toBeNull();
  });
});
