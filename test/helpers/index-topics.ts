/**
 * Shared test fixtures for the index and search tests: knowledge roots in tmp dirs built the way
 * the tool writes them (topic.md via serializeTopicMd, .tkoma-files.jsonl via writeManifest), and
 * a real HTTP server on 127.0.0.1 speaking the Ollama /api/embed protocol with deterministic
 * bag-of-words vectors (texts sharing words are close), counting every text it embeds.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { roleForPath } from '../../src/lib/chunking/index.js';
import { createOllamaEmbedder } from '../../src/lib/embedding/ollama.js';
import type { Embedder } from '../../src/lib/embedding/types.js';
import { serializeTopicMd } from '../../src/lib/store/frontmatter.js';
import type { FileStatusEntry, TopicFront } from '../../src/lib/store/model.js';
import { type FileRecord, writeManifest } from '../../src/lib/store/topic-files.js';

export function makeTmpRoot(): { root: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'tkoma-index-'));
  mkdirSync(join(root, 'references'), { recursive: true });
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface TopicSpec {
  id: string;
  title: string;
  body: string;
  tags?: string[];
  trust_score?: number;
  status?: TopicFront['status'];
  max_age_days?: number;
  fetched_at?: string;
  file_status?: FileStatusEntry[];
  files: Record<string, string>;
}

export function writeTopicMd(root: string, spec: TopicSpec): void {
  const dir = join(root, 'references', spec.id);
  mkdirSync(dir, { recursive: true });
  const front: TopicFront = {
    id: spec.id,
    title: spec.title,
    type: 'ReferenceTopic',
    created_at: '2025-06-15T10:00:00Z',
    trust_score: spec.trust_score ?? 5,
    tags: spec.tags ?? [],
    status: spec.status ?? 'active',
    fetched_at: spec.fetched_at ?? new Date().toISOString(),
    max_age_days: spec.max_age_days ?? 0,
    files: Object.keys(spec.files).sort(),
    sources: [{ type: 'git', url: `https://example.com/${spec.id}.git`, ref: 'main', commit: 'a'.repeat(40) }],
    ...(spec.file_status ? { file_status: spec.file_status } : {}),
  };
  writeFileSync(join(dir, 'topic.md'), serializeTopicMd(front, spec.body));
}

export async function writeTopic(root: string, spec: TopicSpec): Promise<string> {
  const dir = join(root, 'references', spec.id);
  const records: FileRecord[] = [];
  for (const [path, content] of Object.entries(spec.files)) {
    const abs = join(dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    records.push({
      path,
      source_url: `https://example.com/${spec.id}.git`,
      role: roleForPath(path),
      bytes: Buffer.byteLength(content),
      sha256: createHash('sha256').update(content).digest('hex'),
      fetched_at: '2025-06-15T10:00:00Z',
      commit: 'a'.repeat(40),
    });
  }
  writeTopicMd(root, spec);
  await writeManifest(dir, records);
  return dir;
}

/** Bag of words hashed into `dim` buckets, then normalised by the client. */
export function bowVector(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const h = createHash('md5').update(w).digest();
    v[h.readUInt32LE(0) % dim]! += 1;
  }
  v[0]! += 0.01; // never all-zero
  return v;
}

export interface EmbedServer {
  url: string;
  /** Texts embedded, excluding the providers' one-text dimension probe (recorded when answered). */
  texts: string[];
  /** Each answer (but the dimension probe) waits this long; tests may change it between requests. */
  delayMs: number;
  /** Requests being answered now, and the most there ever were at once. */
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

/** startEmbedServer plus the Ollama client embedder that talks to it. */
export async function startBowEmbedder(dim: number, model = 'bow-test'): Promise<{ server: EmbedServer; embedder: Embedder }> {
  const server = await startEmbedServer(dim);
  return { server, embedder: await createOllamaEmbedder({ provider: 'ollama', url: server.url, model }) };
}

/** An Ollama-protocol server on 127.0.0.1 answering bag-of-words vectors, optionally slowly. */
export async function startEmbedServer(dim = 64, opts: { delayMs?: number } = {}): Promise<EmbedServer> {
  const state: EmbedServer = { url: '', texts: [], delayMs: opts.delayMs ?? 0, inFlight: 0, maxInFlight: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as { model?: string; input?: string[] };
      if (req.url !== '/api/embed' || !Array.isArray(body.input)) {
        res.writeHead(404).end('{}');
        return;
      }
      const input = body.input;
      const probe = input.length === 1 && input[0] === 'dimension probe';
      const answer = (): void => {
        if (!probe) {
          state.inFlight--;
          state.texts.push(...input);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ model: body.model, embeddings: input.map((t) => bowVector(t, dim)) }));
      };
      if (!probe) {
        state.inFlight++;
        state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      }
      if (probe || state.delayMs <= 0) answer();
      else setTimeout(answer, state.delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return state;
}

/** Reference files in several languages for a realistic small topic. */
export const SAMPLE_FILES: Record<string, string> = {
  'README.md': `# Widgetry

Widgetry renders widgets in the terminal.

## Installation

Run \`cargo add widgetry\` and enable the \`color\` feature for colour output.

## Configuration

Call \`parseConfig\` with the path of a TOML file. Unknown keys are rejected with an error.
`,
  'docs/guide/layout.md': `# Layout guide

## Flexbox rows

Rows place children left to right. Use \`Row::gap\` to set the spacing between children.

## Scrolling

Long lists scroll with the mouse wheel; \`ScrollView\` keeps the selected item visible.
`,
  'src/config.ts': `/** Reads a widgetry configuration file. */
export function parseConfig(path: string): Config {
  const text = readFileSync(path, 'utf8');
  return validateConfig(toml.parse(text));
}

export interface Config {
  theme: string;
  refreshMillis: number;
}
`,
  'src/render.py': `class Renderer:
    """Draws widgets onto a terminal buffer."""

    def draw_border(self, widget, style):
        """Draw a rectangular border around the widget."""
        for x in range(widget.width):
            self.buffer.put(x, 0, style.horizontal)

def flush_buffer(buffer):
    buffer.terminal.write(buffer.cells)
`,
  'src/lib.rs': `/// A grid of terminal cells.
pub struct Grid {
    cells: Vec<Cell>,
}

impl Grid {
    /// Resizes the grid, dropping cells that fall outside.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.cells.truncate(width as usize * height as usize);
    }
}
`,
};

/** Two topics for search tests: terminal widgets (the sample files) and sourdough notes. */
export const WIDGETRY = {
  id: 'topic-widgetry',
  title: 'Widgetry - terminal widgets',
  body: '# Widgetry\n\nWidgetry is a toolkit for terminal user interfaces: grids, borders, scrolling lists.',
  tags: ['tui', 'terminal', 'widgets'],
  trust_score: 8,
  files: SAMPLE_FILES,
};
export const BAKERY = {
  id: 'topic-bakery',
  title: 'Sourdough baking notes',
  body: '# Sourdough\n\nHow to keep a starter alive and bake bread with a crisp crust.',
  tags: ['bread', 'baking'],
  files: {
    'starter.md': '# Starter\n\nFeed the starter with flour and water every day. A lively starter doubles in size.\n',
    'oven.md': '# Oven\n\nPreheat the dutch oven for the crust. Steam keeps the crust thin.\n',
  },
};
