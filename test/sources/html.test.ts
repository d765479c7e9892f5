import { describe, expect, it } from 'vitest';
import { collapseBlankLines, htmlToMarkdown } from '../../src/lib/sources/html.js';

const page = (body: string, head = '<title>T</title>') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('htmlToMarkdown', () => {
  it('prefers <main>, then [role=main], then a lone <article>, then content ids', () => {
    const chrome = '<div class="menu">MENU-TEXT</div>';
    expect(htmlToMarkdown(page(`${chrome}<main><p>in main</p></main>`)).markdown).not.toContain('MENU-TEXT');
    expect(htmlToMarkdown(page(`${chrome}<div role="main"><p>in role main</p></div>`)).markdown).not.toContain('MENU-TEXT');
    expect(htmlToMarkdown(page(`${chrome}<article><p>in article</p></article>`)).markdown).not.toContain('MENU-TEXT');
    expect(htmlToMarkdown(page(`${chrome}<div id="content"><p>in content</p></div>`)).markdown).not.toContain('MENU-TEXT');
    // Several articles are a listing: keep them all.
    const listing = htmlToMarkdown(page('<article><p>first</p></article><article><p>second</p></article>')).markdown;
    expect(listing).toContain('first');
    expect(listing).toContain('second');
  });

  it('falls back to the body when <main> is empty (client-rendered shell)', () => {
    const md = htmlToMarkdown(page('<main></main><div><p>server text lives here</p></div>')).markdown;
    expect(md).toContain('server text lives here');
  });

  it('drops chrome, hidden elements and permalink anchors but keeps callouts and the h1 header', () => {
    const md = htmlToMarkdown(
      page(`<header><h1>Real Title</h1></header><nav>NAV</nav><footer>FOOT</footer><form><input>SEARCH-FORM</form>
        <aside class="toc">TOC-ASIDE</aside><aside class="admonition warning"><p>Careful now</p></aside>
        <h2 id="s">Section<a class="headerlink" href="#s">¶</a></h2>
        <p hidden>H1DDEN</p><div style="color:red; display : none">NONE</div><span aria-hidden="true">ARIA</span>
        <noscript>NOSCRIPT</noscript><style>.x{}</style><template><p>TEMPLATE</p></template><p>body text</p>`),
    ).markdown;
    for (const gone of ['NAV', 'FOOT', 'SEARCH-FORM', 'TOC-ASIDE', 'H1DDEN', 'NONE', 'ARIA', 'NOSCRIPT', '.x{}', 'TEMPLATE', '¶']) {
      expect(md, gone).not.toContain(gone);
    }
    expect(md).toContain('# Real Title');
    expect(md).toContain('Careful now');
    expect(md).toMatch(/^## Section$/m);
  });

  it('fences <pre> with and without <code>, with the language from several conventions', () => {
    const md = htmlToMarkdown(
      page(`<main>
        <pre>bare pre</pre>
        <pre class="lang-go">package main</pre>
        <div class="highlight-python notranslate"><div class="highlight"><pre><span>def</span> f():<br>    pass</pre></div></div>
        <pre><code class="hljs language-ts">const a = 1;</code></pre>
        <pre class="sourceCode rust"><code>let x = 1;</code></pre>
        <pre data-lang="toml">[package]</pre>
        <pre><code>contains \`\`\` fences</code></pre>
        <pre>   </pre>
      </main>`),
    ).markdown;
    // A block holding ``` forces a longer fence for the whole page.
    expect(md).toContain('````\nbare pre\n````');
    expect(md).toContain('````go\npackage main\n````');
    expect(md).toContain('````python\ndef f():\n    pass\n````');
    expect(md).toContain('````ts\nconst a = 1;\n````');
    expect(md).toContain('````rust\nlet x = 1;\n````');
    expect(md).toContain('````toml\n[package]\n````');
    expect(md).toContain('````\ncontains ``` fences\n````');
    expect(md.match(/````/g)).toHaveLength(14);
  });

  it('keeps blank lines inside code and collapses them outside', () => {
    const md = htmlToMarkdown(page('<main><p>a</p><br><br><br><br><p>b</p><pre><code>x\n\n\n\ny</code></pre></main>')).markdown;
    expect(md).toContain('x\n\n\n\ny');
    expect(md).not.toMatch(/\n{3,}b/);
    expect(collapseBlankLines('a\n\n\n\nb\n```\n1\n\n\n2\n```\n\n\n\nc')).toBe('a\n\nb\n```\n1\n\n\n2\n```\n\nc');
  });

  it('keeps tables', () => {
    const md = htmlToMarkdown(page('<main><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></main>')).markdown;
    expect(md).toMatch(/\| k \| v \|\n\| - \| - \|\n\| a \| 1 \|/);
  });

  it('resolves links and images against the page and <base>, and drops script links', () => {
    const md = htmlToMarkdown(
      page('<main><a href="../up">up</a> <a href="#frag">frag</a> <a href="javascript:evil()">js</a> <img data-src="lazy.png" alt="lazy"> <img src="data:image/png;base64,AAA" alt="inline"></main>'),
      'https://example.com/docs/page/',
    ).markdown;
    expect(md).toContain('[up](https://example.com/docs/up)');
    expect(md).toContain('[frag](https://example.com/docs/page/#frag)');
    expect(md).not.toContain('javascript:');
    expect(md).toContain('js');
    expect(md).toContain('![lazy](https://example.com/docs/page/lazy.png)');
    const based = htmlToMarkdown(page('<main><a href="x">x</a></main>', '<base href="/root/">'), 'https://example.com/a/b').markdown;
    expect(based).toContain('[x](https://example.com/root/x)');
  });

  it('adds the page title as h1 only when the content has none', () => {
    expect(htmlToMarkdown(page('<main><p>text</p></main>', '<title> My  Page </title>'))).toEqual({ markdown: '# My Page\n\ntext\n', title: 'My Page' });
    const withH1 = htmlToMarkdown(page('<main><h1>Own</h1><p>text</p></main>', '<title>Site</title>'));
    expect(withH1.markdown).toBe('# Own\n\ntext\n');
    expect(withH1.title).toBe('Site');
    expect(htmlToMarkdown('<p>no title</p>')).toEqual({ markdown: 'no title\n' });
  });

  it('survives 5,000 nested divs, unclosed tags and mismatched tags', () => {
    const nested = htmlToMarkdown(`<html><body>${'<div>'.repeat(5000)}deep <b>text</b>${'</div>'.repeat(5000)}</body></html>`);
    expect(nested.markdown).toContain('deep text');
    const unclosed = htmlToMarkdown(`<html><body><p>start</p>${'<div><span>'.repeat(20_000)}end`);
    expect(unclosed.markdown).toContain('start');
    expect(unclosed.markdown).toContain('end');
    const mismatched = htmlToMarkdown(`<html><body>${'<div><span>x</div>'.repeat(5000)}</body></html>`);
    expect(mismatched.markdown.match(/x/g)).toHaveLength(5000);
  });

  it('converts a large page in pieces without losing or reordering blocks', () => {
    const sections = Array.from({ length: 3000 }, (_, i) => `<h2>S${i}</h2><p>para ${i}</p><pre><code>code ${i}</code></pre>`);
    const rows = Array.from({ length: 3000 }, (_, i) => `<tr><td>r${i}</td><td>${i}</td></tr>`).join('');
    const md = htmlToMarkdown(page(`<main>${sections.join('')}<table><tr><th>name</th><th>n</th></tr>${rows}</table></main>`)).markdown;
    const heads = [...md.matchAll(/^## S(\d+)$/gm)].map((m) => Number(m[1]));
    expect(heads).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(md).toContain('```\ncode 2999\n```');
    const cells = [...md.matchAll(/^\| r(\d+)\s/gm)].map((m) => Number(m[1]));
    expect(cells).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    // A table split into pieces repeats its header so every piece is a valid table.
    expect(md.match(/^\| name\s*\| n\s*\|$/gm)!.length).toBeGreaterThan(1);
  });
});
