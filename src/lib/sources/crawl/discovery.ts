/**
 * The small files a site publishes about itself, read before any page: robots.txt (through
 * robots-parser: groups per user agent, Allow/Disallow with wildcards, Crawl-delay, Sitemap
 * lines), sitemaps and sitemap indexes, and llms.txt. Pure: text in, URLs and rules out.
 *
 * Sitemaps are read with a pattern over `<loc>` elements rather than an XML parser: the format is
 * a flat list, the pattern cannot be made to recurse or expand entities, and a malformed sitemap
 * still yields the URLs it does hold.
 */
import robotsModule from 'robots-parser';

type Robot = ReturnType<typeof robotsModule.default>;
/** robots-parser is CommonJS exporting the function itself; its types declare it as `default`. */
const robotsParser = robotsModule as unknown as (url: string, text: string) => Robot;

export interface RobotsRules {
  /** False when robots.txt disallows the URL for our user agent (or `*`). */
  allowed(url: string): boolean;
  /** Seconds between requests asked for our user agent (or `*`), if any. */
  crawlDelay?: number;
  sitemaps: string[];
}

/** The product token robots.txt groups are matched against (`User-agent: tkoma-ref`). */
export const ROBOTS_AGENT = 'tkoma-ref';

/** Rules from a robots.txt body; a missing or unreadable robots.txt allows everything. */
export function parseRobots(robotsUrl: string, text: string | null): RobotsRules {
  if (text === null) return { allowed: () => true, sitemaps: [] };
  const robots = robotsParser(robotsUrl, text);
  const delay = robots.getCrawlDelay(ROBOTS_AGENT);
  return {
    // undefined: a URL of another origin than robots.txt's, which never reaches here.
    allowed: (url) => robots.isAllowed(url, ROBOTS_AGENT) !== false,
    ...(delay !== undefined && Number.isFinite(delay) && delay > 0 ? { crawlDelay: delay } : {}),
    sitemaps: robots.getSitemaps(),
  };
}

export interface Sitemap {
  /** `index`: the URLs are other sitemaps; `urlset`: they are pages. */
  kind: 'index' | 'urlset';
  urls: string[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[e.toLowerCase()] ?? all;
  });
}

/** The `<loc>` URLs of a sitemap or sitemap index (relative ones resolved against its own URL). */
export function parseSitemap(xml: string, sitemapUrl: string): Sitemap {
  const kind = /<sitemapindex[\s>]/i.test(xml) ? 'index' : 'urlset';
  const urls: string[] = [];
  for (const m of xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?([^<\]]*?)(?:\]\]>)?\s*<\/loc>/gi)) {
    try {
      urls.push(new URL(unescapeXml(m[1]!.trim()), sitemapUrl).href);
    } catch {
      // not a URL: skip it, keep the rest
    }
  }
  return { kind, urls };
}

/**
 * The page URLs an llms.txt names (https://llmstxt.org: a markdown file of `[title](url)` links
 * under headings); relative links resolve against the file's URL.
 */
export function parseLlmsTxt(text: string, llmsUrl: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)/g)) {
    try {
      out.push(new URL(m[1]!, llmsUrl).href);
    } catch {
      // not a URL
    }
  }
  return out;
}
