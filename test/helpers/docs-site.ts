/**
 * A real documentation site on 127.0.0.1 for crawl tests: the READMEs of installed packages
 * rendered to HTML pages (nav, sidebar, code blocks, tables), with robots.txt, a sitemap index,
 * llms.txt, ETag/Last-Modified and the traps real sites have (see `docsSite`). Every request is
 * logged, so tests can assert what was fetched.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { PROJECT } from './fixtures.js';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function inline(s: string): string {
  return escapeHtml(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    // Links between a repository's files lead nowhere on this site: kept as text.
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, text: string, href: string) => (/^(?:https?:|\/)/.test(href) ? `<a href="${href}">${text}</a>` : text));
}

/** A small markdown renderer (headings, paragraphs, fenced code, lists, pipe tables): enough for READMEs. */
export function renderMarkdown(md: string): string {
  const out: string[] = [];
  const lines = md.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      out.push(`<div class="highlight"><pre><code class="language-${fence[1] || 'text'}">${escapeHtml(code.join('\n'))}</code></pre></div>`);
    } else if (/^#{1,6} /.test(line)) {
      const n = /^#+/.exec(line)![0].length;
      out.push(`<h${n}>${inline(line.slice(n + 1))}</h${n}>`);
    } else if (/^\s*[-*] /.test(line)) {
      const items: string[] = [];
      for (; i < lines.length && /^\s*[-*] /.test(lines[i]!); i++) items.push(`<li>${inline(lines[i]!.replace(/^\s*[-*] /, ''))}</li>`);
      i--;
      out.push(`<ul>${items.join('')}</ul>`);
    } else if (/^\|.*\|\s*$/.test(line) && /^\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? '')) {
      const cells = (l: string) => l.trim().slice(1, -1).split('|').map((c) => inline(c.trim()));
      const head = `<tr>${cells(line).map((c) => `<th>${c}</th>`).join('')}</tr>`;
      const rows: string[] = [];
      for (i += 2; i < lines.length && /^\|.*\|\s*$/.test(lines[i]!); i++) rows.push(`<tr>${cells(lines[i]!).map((c) => `<td>${c}</td>`).join('')}</tr>`);
      i--;
      out.push(`<table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`);
    } else if (line.trim() !== '' && !line.startsWith('<')) {
      out.push(`<p>${inline(line)}</p>`);
    }
  }
  return out.join('\n');
}

/** Installed packages whose READMEs become the site's guide pages. */
export const DOC_PACKAGES = ['minimatch', 'picomatch', 'robots-parser', 'smol-toml', 'node-html-parser', 'semver'];

export interface DocsSite {
  base: string;
  /** Requests seen, as "METHOD path status" (status after the handler answered). */
  log: string[];
  /** Conditional requests answered 304, by path. */
  notModified: string[];
  /** Replace a page's markdown (new ETag and Last-Modified), or remove it (404 from then on). */
  setPage(slug: string, markdown: string | null): void;
  close(): Promise<void>;
}

interface Page {
  markdown: string;
  version: number;
  modified: Date;
}

function layout(title: string, nav: string, body: string, canonical?: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${canonical ? `<link rel="canonical" href="${canonical}">` : ''}</head>
<body><header class="site-header"><a href="/">Home</a> <a href="/blog/">Blog</a></header>
<nav class="sidebar">${nav}</nav>
<main><article class="markdown-body">${body}</article></main>
<footer>Copyright footer</footer></body></html>`;
}

/**
 * The site, under /docs/:
 * - one guide page per DOC_PACKAGES README at /docs/<pkg> (named by the sitemap and llms.txt, as
 *   `/docs/<pkg>.md` twins in llms.txt), the index /docs/ whose sidebar links every page;
 * - robots.txt: `Disallow: /docs/private/`, `Crawl-delay: 0.1`, a Sitemap line to a sitemap index
 *   of two sitemaps (one names /docs/private/secret, /docs/gone (404) and /blog/post (out of scope));
 * - /docs/forbidden answers 403, /docs/slow never answers, /docs/moved redirects to /docs/moved-here
 *   (in scope), /docs/away redirects to /blog/away (out of scope);
 * - duplicates /docs/a, /docs/a/, /docs/a#x, /docs/a?utm_source=t; a query page /docs/search?q=x;
 *   a link loop /docs/loop-1 ↔ /docs/loop-2; /docs/deep reached only through the loop.
 */
export async function docsSite(): Promise<DocsSite> {
  const pages = new Map<string, Page>();
  const now = Date.now();
  const put = (slug: string, markdown: string) => {
    const prev = pages.get(slug);
    pages.set(slug, { markdown, version: (prev?.version ?? 0) + 1, modified: new Date(Math.floor((now + (prev ? 60_000 * (prev.version + 1) : 0)) / 1000) * 1000) });
  };
  for (const pkg of DOC_PACKAGES) put(pkg, readFileSync(join(PROJECT, 'node_modules', pkg, 'README.md'), 'utf8'));
  put('a', '# Page A\n\nThe page with four spellings.\n');
  put('moved-here', '# Moved here\n\nWhere /docs/moved leads.\n');
  put('loop-1', '# Loop one\n\nSee [loop two](/docs/loop-2).\n');
  put('loop-2', '# Loop two\n\nSee [loop one](/docs/loop-1) and [the deep page](/docs/deep).\n');
  put('deep', '# Deep\n\nOnly reached through the loop.\n');

  const log: string[] = [];
  const notModified: string[] = [];
  let base = '';
  const navLinks = () =>
    [...DOC_PACKAGES, 'a', 'loop-1']
      .filter((s) => pages.has(s))
      .map((s) => `<a href="/docs/${s}">${s}</a>`)
      .join(' ');
  const extraLinks = [
    '/docs/a/', '/docs/a#usage', '/docs/a?utm_source=test', '/docs/search?q=glob', '/docs/forbidden', '/docs/slow',
    '/docs/moved', '/docs/away', '/docs/private/hidden', '/blog/', 'https://example.com/elsewhere', 'mailto:docs@example.com', '/docs/logo.png',
  ].map((h) => `<a href="${h}">${h}</a>`).join(' ');

  const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(body);
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', base);
    const path = url.pathname;
    if (path === '/robots.txt') return send(res, 200, 'text/plain', `User-agent: *\nDisallow: /docs/private/\nCrawl-delay: 0.1\n\nSitemap: ${base}/sitemap-index.xml\n`);
    if (path === '/sitemap-index.xml') {
      return send(res, 200, 'application/xml', `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/sitemaps/guides.xml</loc></sitemap><sitemap><loc>${base}/sitemaps/other.xml</loc></sitemap></sitemapindex>`);
    }
    if (path === '/sitemaps/guides.xml') {
      const locs = [...DOC_PACKAGES].filter((s) => pages.has(s)).map((s) => `<url><loc>${base}/docs/${s}</loc></url>`).join('');
      return send(res, 200, 'application/xml', `<?xml version="1.0"?><urlset>${locs}<url><loc>${base}/docs/</loc></url></urlset>`);
    }
    if (path === '/sitemaps/other.xml') {
      const extra = [...pages.keys()].filter((s) => s.startsWith('new-')).map((s) => `<url><loc>${base}/docs/${s}</loc></url>`).join('');
      return send(res, 200, 'application/xml', `<?xml version="1.0"?><urlset><url><loc>${base}/docs/private/secret</loc></url><url><loc>${base}/docs/gone</loc></url><url><loc>${base}/blog/post</loc></url>${extra}</urlset>`);
    }
    if (path === '/llms.txt') {
      return send(res, 200, 'text/plain', `# Test docs\n\n> Guides for a few packages.\n\n## Guides\n\n${DOC_PACKAGES.filter((s) => pages.has(s)).map((s) => `- [${s}](/docs/${s}.md): the ${s} guide`).join('\n')}\n`);
    }
    if (path === '/docs/forbidden') return send(res, 403, 'text/html', '<h1>Forbidden</h1>');
    if (path === '/docs/slow') return; // never answers: the fetch's deadline ends it
    if (path === '/docs/moved') return send(res, 301, 'text/html', '', { location: '/docs/moved-here' });
    if (path === '/docs/away') return send(res, 302, 'text/html', '', { location: '/blog/away' });
    if (path === '/docs' || path === '/docs/') {
      return send(res, 200, 'text/html', layout('Docs', navLinks(), `<h1>Documentation</h1><p>Guides for a few packages.</p><p>${extraLinks}</p>`));
    }
    const m = /^\/docs\/([a-z0-9-]+?)(?:\.md)?\/?$/.exec(path);
    const page = m ? pages.get(m[1]!) : undefined;
    if (!m || !page) return send(res, 404, 'text/html', '<h1>Not found</h1>');
    const etag = `"${m[1]}-v${page.version}"`;
    const lastModified = page.modified.toUTCString();
    const since = req.headers['if-modified-since'];
    if (req.headers['if-none-match'] === etag || (!req.headers['if-none-match'] && since && Date.parse(since) >= page.modified.getTime())) {
      notModified.push(path);
      res.writeHead(304, { etag, 'last-modified': lastModified });
      return void res.end();
    }
    const canonical = m[1] === 'a' ? `${base}/docs/a` : undefined;
    send(res, 200, 'text/html; charset=utf-8', layout(m[1]!, navLinks(), renderMarkdown(page.markdown), canonical), { etag, 'last-modified': lastModified });
  };

  const server: Server = createServer((req, res) => {
    res.on('finish', () => log.push(`${req.method} ${req.url} ${res.statusCode}`));
    handle(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    log,
    notModified,
    setPage: (slug, markdown) => {
      if (markdown === null) pages.delete(slug);
      else put(slug, markdown);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
