import { describe, expect, it } from 'vitest';
import { TkomaError } from '../../src/lib/errors.js';
import { bodyToMarkdown, chooseCharset, classifyBody, decodeBody, parseContentType, sniffMetaCharset } from '../../src/lib/sources/web-content.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('web content handling', () => {
  it('parses content types and charsets', () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({ mime: 'text/html', charset: 'iso-8859-1' });
    expect(parseContentType(null)).toEqual({ mime: '' });
  });

  it('classifies by type, extension and first bytes', () => {
    const ct = (mime: string) => ({ mime });
    expect(classifyBody(ct('text/html'), 'https://x/a')).toBe('html');
    expect(classifyBody(ct('application/xhtml+xml'), 'https://x/a')).toBe('html');
    expect(classifyBody(ct('text/markdown'), 'https://x/a')).toBe('markdown');
    expect(classifyBody(ct('text/plain'), 'https://x/notes.md')).toBe('markdown');
    expect(classifyBody(ct('text/plain'), 'https://x/notes.txt')).toBe('text');
    expect(classifyBody(ct('text/plain'), 'https://x/src/main.py')).toBe('code');
    expect(classifyBody(ct('application/vnd.api+json'), 'https://x/a')).toBe('code');
    for (const mime of ['image/png', 'application/pdf', 'application/octet-stream', 'application/zip', 'video/mp4', 'font/woff2']) {
      expect(classifyBody(ct(mime), 'https://x/a'), mime).toBe('binary');
    }
    expect(classifyBody(ct(''), 'https://x/a', bytes('<!DOCTYPE html><p>x'))).toBe('html');
    expect(classifyBody(ct(''), 'https://x/a', bytes('just words'))).toBe('text');
    expect(classifyBody(ct(''), 'https://x/a', new Uint8Array([1, 0, 2]))).toBe('binary');
    // UTF-16 text has NUL bytes and is still text.
    expect(classifyBody({ mime: 'text/plain', charset: 'utf-16le' }, 'https://x/a', new Uint8Array([104, 0, 105, 0]))).toBe('text');
  });

  it('decodes with BOM, header charset, then meta charset', () => {
    const utf16 = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0xe9, 0x00]);
    expect(decodeBody(utf16, { mime: 'text/plain' }, 'text')).toBe('hé');
    expect(sniffMetaCharset(bytes('<html><head><meta charset="windows-1252">'))).toBe('windows-1252');
    const latin = new Uint8Array([0x3c, 0x6d, 0x65, 0x74, 0x61, 0x20, 0x63, 0x68, 0x61, 0x72, 0x73, 0x65, 0x74, 0x3d, 0x6c, 0x61, 0x74, 0x69, 0x6e, 0x31, 0x3e, 0xe9]);
    expect(decodeBody(latin, { mime: 'text/html' }, 'html')).toBe('<meta charset=latin1>é');
    expect(decodeBody(new Uint8Array([0x61, 0xff]), { mime: 'text/plain', charset: 'no-such-charset' }, 'text')).toBe('a\ufffd');
  });

  it('reads a body of well-formed UTF-8 as UTF-8 when its label cannot be right', () => {
    const cafe = bytes('<html><body><p>café — naïve</p></body></html>');
    // Served as UTF-16 (no BOM, no NUL bytes) or as Latin-1: the bytes are UTF-8.
    for (const charset of ['utf-16', 'utf-16le', 'utf-16be', 'iso-8859-1', 'windows-1252', 'shift_jis']) {
      expect(chooseCharset(cafe, charset, 'html'), charset).toMatchObject({ encoding: 'utf-8', from: 'utf-8-body', label: charset });
      expect(decodeBody(cafe, { mime: 'text/html', charset }, 'html')).toContain('café — naïve');
    }
    // A meta tag naming UTF-16 means UTF-8 (the HTML standard).
    expect(chooseCharset(bytes('<meta charset="utf-16"><p>x'), undefined, 'html')).toMatchObject({ encoding: 'utf-8', from: 'meta' });
    // A Latin-1 body that is not UTF-8 keeps its label; pure ASCII keeps it too (both read the same).
    const latin = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
    expect(chooseCharset(latin, 'iso-8859-1', 'text')).toMatchObject({ encoding: 'windows-1252', from: 'header' });
    expect(decodeBody(latin, { mime: 'text/plain', charset: 'iso-8859-1' }, 'text')).toBe('café');
    expect(chooseCharset(bytes('plain'), 'iso-8859-1', 'text')).toMatchObject({ encoding: 'windows-1252', from: 'header' });
    // Real UTF-16 (NUL bytes in its ASCII) is UTF-16 even though NULs and ASCII are valid UTF-8.
    const real16 = Buffer.from('<p>héllo</p>', 'utf16le');
    expect(chooseCharset(real16, 'utf-16le', 'html')).toMatchObject({ encoding: 'utf-16le', from: 'header' });
    expect(decodeBody(real16, { mime: 'text/html', charset: 'utf-16le' }, 'html')).toBe('<p>héllo</p>');
    // The BOM outranks every label.
    expect(chooseCharset(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x')]), 'utf-16', 'html').encoding).toBe('utf-8');
  });

  it('refuses a body that its label turns to garbage (UNDECODABLE_TEXT)', () => {
    // Latin-1 bytes (not UTF-8) labelled UTF-16: every pair of bytes becomes one CJK-looking character.
    const latinHtml = new Uint8Array([...bytes('<html><body><p>caf'), 0xe9, ...bytes(' au lait</p></body></html>')]);
    let err: unknown;
    try {
      decodeBody(latinHtml, { mime: 'text/html', charset: 'utf-16' }, 'html', 'http://x/p');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TkomaError);
    expect((err as TkomaError).code).toBe('UNDECODABLE_TEXT');
    expect((err as TkomaError).message).toContain('utf-16le');
    expect(() => decodeBody(new Uint8Array([...bytes('line one\nline '), 0xe9]), { mime: 'text/plain', charset: 'utf-16be' }, 'text')).toThrow(/does not decode as utf-16be/);
  });

  it('refuses empty documents', () => {
    for (const [text, kind] of [['  \n', 'text'], ['<html><body><script>x()</script></body></html>', 'html']] as const) {
      try {
        bodyToMarkdown(text, kind, { mime: '' }, 'https://x/a');
        throw new Error('expected EMPTY_FETCH');
      } catch (err) {
        expect(err).toBeInstanceOf(TkomaError);
        expect((err as TkomaError).code).toBe('EMPTY_FETCH');
      }
    }
  });
});
