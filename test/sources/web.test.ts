import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TkomaError } from '../../src/lib/errors.js';
import { type FetchWebOptions, fetchWebPage as fetchUnder, type WebPage } from '../../src/lib/sources/web.js';
import { closedPort, LOCAL_POLICY, send, startServer, type TestServer } from '../helpers/http-server.js';

/** These pages are served on 127.0.0.1: the root's allow list opens it, as a user's would. */
const fetchWebPage = (url: string, opts: FetchWebOptions = {}) => fetchUnder(url, { policy: LOCAL_POLICY, ...opts }) as Promise<WebPage>;

async function failure(promise: Promise<unknown>): Promise<TkomaError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(TkomaError);
    return err as TkomaError;
  }
  throw new Error('expected the call to fail');
}

const DOCS_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Guide | Widgets</title></head>
<body>
  <header class="site-header"><a href="/">Widgets home</a> SITE-HEADER-TEXT</header>
  <nav><ul><li><a href="/a">NAV-LINK-ONE</a></li><li><a href="/b">NAV-LINK-TWO</a></li></ul></nav>
  <div class="layout">
    <aside class="sidebar"><a href="/x">SIDEBAR-ENTRY</a></aside>
    <main>
      <h1>Getting started</h1>
      <p>Install the <a href="../install/">crate</a> and see <img src="img/logo.png" alt="logo">.</p>
      <pre>cargo add widgets
cargo build --release</pre>
      <pre><code class="language-rust">fn main() {
    let w = Widget::new("a &lt; b");
}</code></pre>
      <table>
        <thead><tr><th>Option</th><th>Default</th></tr></thead>
        <tbody><tr><td>size</td><td>42</td></tr><tr><td>color</td><td>red</td></tr></tbody>
      </table>
    </main>
  </div>
  <footer>FOOTER-COPYRIGHT</footer>
  <script>console.log("SCRIPT-BODY")</script>
</body></html>`;

describe('fetchWebPage against a local HTTP server', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv.close();
  });

  it('converts a docs page: main content, fenced code blocks, table; chrome dropped', async () => {
    srv.route('/learn/guide/', send(DOCS_PAGE, 'text/html; charset=utf-8'));
    const page = await fetchWebPage(srv.url('/learn/guide/?tab=1'));
    const md = page.markdown;
    expect(md).toMatch(/^# Getting started\n/);
    expect(md).toContain('```\ncargo add widgets\ncargo build --release\n```');
    expect(md).toContain('```rust\nfn main() {\n    let w = Widget::new("a < b");\n}\n```');
    expect(md).toMatch(/\| Option \| Default \|/);
    expect(md).toMatch(/\| color\s+\| red\s+\|/);
    expect(md).toContain(`[crate](${srv.url('/learn/install/')})`);
    expect(md).toContain(`![logo](${srv.url('/learn/guide/img/logo.png')})`);
    for (const chrome of ['NAV-LINK-ONE', 'SIDEBAR-ENTRY', 'FOOTER-COPYRIGHT', 'SITE-HEADER-TEXT', 'SCRIPT-BODY']) {
      expect(md).not.toContain(chrome);
    }
    expect(page.title).toBe('Guide | Widgets');
    expect(page.content_type).toBe('text/html; charset=utf-8');
    expect(page.final_url).toBe(srv.url('/learn/guide/?tab=1'));
    expect(page.file_name).toMatch(/^127\.0\.0\.1-\d+-learn-guide-[0-9a-f]{8}\.md$/);
    expect(page.bytes).toBe(Buffer.byteLength(DOCS_PAGE));
    expect(Number.isNaN(Date.parse(page.fetched_at))).toBe(false);
  });

  it('follows redirects, records the final URL and keeps the requested name', async () => {
    srv.route('/old', (_req, res) => {
      res.writeHead(301, { location: '/older-still' });
      res.end();
    });
    srv.route('/older-still', (_req, res) => {
      res.writeHead(302, { location: srv.url('/new/page') });
      res.end();
    });
    srv.route('/new/page', send('<html><body><main><h1>Moved</h1><p>Here now.</p></main></body></html>', 'text/html'));
    const page = await fetchWebPage(srv.url('/old'));
    expect(page.final_url).toBe(srv.url('/new/page'));
    expect(page.url).toBe(srv.url('/old'));
    expect(page.file_name).toMatch(/-old\.md$/);
    expect(page.markdown).toContain('Here now.');
  });

  it('refuses a redirect to file:// and stops after too many redirects', async () => {
    srv.route('/to-file', (_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    });
    const toFile = await failure(fetchWebPage(srv.url('/to-file')));
    expect(toFile.code).toBe('FETCH_FAILED');
    expect(toFile.details.redirect_to).toBe('file:///etc/passwd');
    expect(srv.seen.filter((s) => s.includes('passwd'))).toEqual([]);

    srv.route('/loop', (_req, res) => {
      res.writeHead(307, { location: '/loop' });
      res.end();
    });
    const loop = await failure(fetchWebPage(srv.url('/loop')));
    expect(loop.code).toBe('FETCH_FAILED');
    expect(loop.message).toMatch(/redirects/);
    expect(srv.seen.filter((s) => s === 'GET /loop')).toHaveLength(6);
  });

  it('times out on a server that never answers, and on a body that stalls', async () => {
    srv.route('/hang', () => {
      /* never answers */
    });
    const hang = await failure(fetchWebPage(srv.url('/hang'), { timeoutMs: 300 }));
    expect(hang.code).toBe('SOURCE_UNREACHABLE');
    expect(hang.details.timeout_ms).toBe(300);

    srv.route('/stall', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body><p>partial');
    });
    const stall = await failure(fetchWebPage(srv.url('/stall'), { timeoutMs: 300 }));
    expect(stall.code).toBe('SOURCE_UNREACHABLE');

    // Without an explicit deadline, TKOMA_REF_WEB_TIMEOUT (seconds) sets it.
    process.env.TKOMA_REF_WEB_TIMEOUT = '0.3';
    try {
      const fromEnv = await failure(fetchWebPage(srv.url('/hang')));
      expect(fromEnv.details.timeout_ms).toBe(300);
    } finally {
      delete process.env.TKOMA_REF_WEB_TIMEOUT;
    }
  });

  it('caps the body size, declared or streamed', async () => {
    srv.route('/big-declared', send('x'.repeat(5000), 'text/plain'));
    const declared = await failure(fetchWebPage(srv.url('/big-declared'), { maxBytes: 1000 }));
    expect(declared.code).toBe('FETCH_FAILED');
    expect(declared.message).toMatch(/larger than 1000 bytes/);

    let chunksSent = 0;
    srv.route('/big-streamed', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no length up front
      const timer = setInterval(() => {
        if (++chunksSent > 10_000) {
          clearInterval(timer);
          res.end();
        } else {
          res.write('y'.repeat(1024));
        }
      }, 1);
      res.on('close', () => clearInterval(timer));
    });
    const streamed = await failure(fetchWebPage(srv.url('/big-streamed'), { maxBytes: 8 * 1024 }));
    expect(streamed.code).toBe('FETCH_FAILED');
    expect(streamed.message).toMatch(/larger than 8192 bytes/);
  });

  it('refuses binary content types, and NUL bytes served as text', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    srv.route('/logo.png', send(png, 'image/png'));
    srv.route('/doc.pdf', send('%PDF-1.7', 'application/pdf'));
    srv.route('/blob', send(png, 'application/octet-stream'));
    srv.route('/liar.txt', send(png, 'text/plain'));
    for (const path of ['/logo.png', '/doc.pdf', '/blob', '/liar.txt']) {
      const err = await failure(fetchWebPage(srv.url(path)));
      expect(err.code, path).toBe('FETCH_FAILED');
      expect(err.message, path).toMatch(/not a text document/);
    }
  });

  it('reports HTTP errors with their status and unreachable hosts as SOURCE_UNREACHABLE', async () => {
    const missing = await failure(fetchWebPage(srv.url('/nope')));
    expect(missing.code).toBe('FETCH_FAILED');
    expect(missing.details.status).toBe(404);

    srv.route('/boom', send('oops', 'text/plain', 500));
    expect((await failure(fetchWebPage(srv.url('/boom')))).details.status).toBe(500);

    const port = await closedPort();
    const refused = await failure(fetchWebPage(`http://127.0.0.1:${port}/`));
    expect(refused.code).toBe('SOURCE_UNREACHABLE');
    expect(refused.details.cause).toBe('ECONNREFUSED');
  });

  it('stores markdown and plain text exactly as served', async () => {
    const markdown = '# Notes\n\n* star bullets *stay*\n\n\n\n```js\nlet a = `x`;\n```\n\tTabbed <b>not html</b>\r\n';
    srv.route('/notes', send(markdown, 'text/markdown; charset=utf-8'));
    const md = await fetchWebPage(srv.url('/notes'));
    expect(md.markdown).toBe(markdown);
    expect(md.title).toBe('Notes');

    const text = 'Plain <not> *markup*\n\n\n\nend';
    srv.route('/plain.txt', send(text, 'text/plain'));
    expect((await fetchWebPage(srv.url('/plain.txt'))).markdown).toBe(text);

    srv.route('/README.md', send(markdown, 'text/plain; charset=utf-8'));
    const readme = await fetchWebPage(srv.url('/README.md'));
    expect(readme.markdown).toBe(markdown);
    expect(readme.file_name).toMatch(/-readme\.md$/);
  });

  it('wraps source files and JSON in a fenced block', async () => {
    srv.route('/src/lib.rs', send('pub fn f() {}\n', 'text/plain; charset=utf-8'));
    const rs = await fetchWebPage(srv.url('/src/lib.rs'));
    expect(rs.markdown).toBe('# lib.rs\n\n```rust\npub fn f() {}\n```\n');
    srv.route('/data', send('{"a": "```"}', 'application/json'));
    expect((await fetchWebPage(srv.url('/data'))).markdown).toContain('````json\n{"a": "```"}\n````');
  });

  it('decodes latin-1 from the header or a meta tag', async () => {
    const latin1 = Buffer.from('<html><body><main><p>Caf\xe9 cr\xe8me \xa9</p></main></body></html>', 'latin1');
    srv.route('/latin1', send(latin1, 'text/html; charset=ISO-8859-1'));
    expect((await fetchWebPage(srv.url('/latin1'))).markdown).toContain('Café crème ©');

    const meta = Buffer.from('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body><p>na\xefve</p></body></html>', 'latin1');
    srv.route('/meta', send(meta, 'text/html'));
    expect((await fetchWebPage(srv.url('/meta'))).markdown).toContain('naïve');
  });

  it('turns invalid UTF-8 into U+FFFD instead of failing', async () => {
    const bad = Buffer.concat([Buffer.from('<html><body><p>ok '), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(' end</p></body></html>')]);
    srv.route('/bad-utf8', send(bad, 'text/html; charset=utf-8'));
    const page = await fetchWebPage(srv.url('/bad-utf8'));
    expect(page.markdown).toContain('ok \ufffd(\ufffd end');
  });

  it('converts deeply nested HTML without overflowing', async () => {
    const depth = 5000;
    const html = `<html><body>${'<div>'.repeat(depth)}bottom of the well${'</div>'.repeat(depth)}</body></html>`;
    srv.route('/deep', send(html, 'text/html'));
    expect((await fetchWebPage(srv.url('/deep'))).markdown).toContain('bottom of the well');
  });

  it('reports a page with nothing readable (client-rendered) as EMPTY_FETCH', async () => {
    srv.route('/spa', send('<html><head><title>App</title></head><body><div id="root"></div><script>render()</script></body></html>', 'text/html'));
    expect((await failure(fetchWebPage(srv.url('/spa')))).code).toBe('EMPTY_FETCH');
  });

  it('sends a user agent and validates the URL before any request', async () => {
    let agent = '';
    srv.route('/ua', (req, res) => {
      agent = String(req.headers['user-agent']);
      send('hello', 'text/plain')(req, res);
    });
    await fetchWebPage(srv.url('/ua'), { userAgent: 'probe-test/1' });
    expect(agent).toBe('probe-test/1');
    expect((await failure(fetchWebPage('file:///etc/passwd'))).code).toBe('UNSUPPORTED_SCHEME');
  });
});
