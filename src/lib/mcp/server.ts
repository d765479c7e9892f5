/**
 * `tkoma-ref mcp`: the ghost-facing tools, the topics as resources and the reference-researcher
 * skill as a prompt, over the official SDK. Tools are served from hand-written JSON Schemas on
 * McpServer's underlying Server (so a bad argument becomes a tool result with the CLI's stable
 * code, not a schema library's protocol error); resources and prompts use McpServer itself.
 *
 * One process, many sessions (stdio has one; Streamable HTTP one per client): the warm state
 * (lib/mcp/warm.ts) is shared, each session gets its own McpServer.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

import { TkomaError } from '../errors.js';
import type { CommitAuthor } from '../root-git.js';
import { packageVersion } from '../serve/protocol.js';
import { envSetting } from '../settings.js';
import { packageDir } from '../store/root.js';
import { INSTRUCTIONS, TOOLS } from './schemas.js';
import { type CallContext, callTool, type ElicitAnswer, type ServerContext, type ToolResult } from './tools.js';
import { startWarm, type Warm, type WarmOptions } from './warm.js';

export const RECENT_URI = 'tkoma-ref://topics/recent';
export const TOPIC_URI = 'tkoma-ref://topics/{topic_id}';
export const FILE_URI = 'tkoma-ref://files/{topic_id}/{+path}';
/** An operator reading a dialog: far longer than a protocol round trip. */
const ELICITATION_TIMEOUT_SECONDS = 30 * 60;

export interface McpOptions {
  root: string;
  embedderFlag?: string;
  author: CommitAuthor;
  reconcileSeconds?: number;
  /** Also serve the CLI's unix socket when nobody else does (default true). */
  serveSocket?: boolean;
  log?: (message: string) => void;
  onIdle?: WarmOptions['onIdle'];
}

export interface Shared {
  ctx: ServerContext;
  warm: Warm;
  /** One McpServer per client session, all over the same warm state. */
  newSession(): McpServer;
  close(): Promise<void>;
}

async function readSkill(): Promise<string> {
  return readFile(join(packageDir(), 'default-prompts', 'skills', 'reference-researcher', 'SKILL.md'), 'utf8');
}

function toolsFor(server: McpServer, ctx: ServerContext): void {
  const low = server.server;
  low.registerCapabilities({ tools: { listChanged: false } });
  low.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations })),
  }));
  low.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    let step = 0;
    const caps = low.getClientCapabilities();
    const call: CallContext = {
      signal: extra.signal,
      clientName: low.getClientVersion()?.name,
      progress(message: string) {
        if (token === undefined || extra.signal.aborted) return;
        step += 1;
        extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, message } }).catch(() => undefined);
      },
      ...(caps?.elicitation
        ? {
            elicit: async (message, requestedSchema, signal): Promise<ElicitAnswer> => {
              const r = await extra.sendRequest({ method: 'elicitation/create', params: { message, requestedSchema } }, ElicitResultSchema, {
                signal,
                timeout: (envSetting('elicitationTimeout') ?? ELICITATION_TIMEOUT_SECONDS) * 1000,
              });
              return { action: r.action, content: r.content as Record<string, unknown> | undefined };
            },
          }
        : {}),
    };
    ctx.warm.callStarted();
    let result: ToolResult;
    try {
      result = await callTool(ctx, request.params.name, request.params.arguments, call);
    } finally {
      ctx.warm.callEnded();
    }
    if (extra.signal.aborted && committed(request.params.name, result)) {
      // The cancel came after the commit: the SDK drops the answer of a cancelled request, but
      // this one changed the library, so the ghost must learn what now exists.
      const late: ToolResult = {
        ...result,
        content: [{ type: 'text', text: `The cancel came too late: this was already committed.\n${result.content.map((c) => c.text).join('\n')}` }],
        structuredContent: { ...result.structuredContent, cancel_too_late: true },
      };
      await low.transport?.send({ jsonrpc: '2.0', id: extra.requestId, result: late }, { relatedRequestId: extra.requestId }).catch(() => undefined);
    }
    return result;
  });
}

/** A tool answer that reports a commit it made (it must reach the ghost even after a late cancel). */
const committed = (name: string, r: ToolResult): boolean =>
  !r.isError && TOOLS.find((t) => t.name === name)?.annotations.readOnlyHint === false && typeof r.structuredContent?.commit === 'string';

function resourcesFor(server: McpServer, ctx: ServerContext): void {
  server.registerResource(
    'recent-topics',
    RECENT_URI,
    {
      title: 'Available Reference Topics',
      description: 'The 10 most recently fetched reference topics as the markdown block for a ghost\'s context (the seed\'s "Available Reference Topics").',
      mimeType: 'text/markdown',
    },
    async (uri) => {
      const { recentTopics } = await import('../topics/read.js');
      const { markdown } = await recentTopics(ctx.root, 10);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: markdown }] };
    },
  );

  server.registerResource(
    'topic-note',
    new ResourceTemplate(TOPIC_URI, {
      list: async () => {
        const { listTopics } = await import('../topics/read.js');
        const { topics } = await listTopics(ctx.root, { includeObsolete: true });
        return {
          resources: topics.map((t) => ({
            uri: `tkoma-ref://topics/${t.topic_id}`,
            name: t.topic_id,
            title: t.title,
            description: `${t.status}${t.is_stale ? ' (stale)' : ''}; ${t.file_count} files${t.tags.length ? `; ${t.tags.join(', ')}` : ''}`,
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    { title: 'Reference topic note', description: 'A topic\'s topic.md: TOML front matter (sources, freshness, files) and the ghost-written description.', mimeType: 'text/markdown' },
    async (uri, vars) => {
      const { getReference } = await import('../topics/read.js');
      const r = await getReference(ctx.root, { topic: decodeURIComponent(String(vars.topic_id)), path: 'topic.md' });
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: r.content }] };
    },
  );

  server.registerResource(
    'reference-file',
    new ResourceTemplate(FILE_URI, { list: undefined }),
    {
      title: 'Reference file',
      description: 'A fetched file of a topic by path, e.g. tkoma-ref://files/topic-dioxus-ui/docs/guide.md (search hits carry topic_id and path).',
    },
    async (uri, vars) => {
      const { getReference } = await import('../topics/read.js');
      const path = String(vars.path)
        .split('/')
        .map((p) => decodeURIComponent(p))
        .join('/');
      const r = await getReference(ctx.root, { topic: decodeURIComponent(String(vars.topic_id)), path });
      const mimeType = /\.(md|markdown)$/i.test(r.path) ? 'text/markdown' : 'text/plain';
      return { contents: [{ uri: uri.href, mimeType, text: r.content }] };
    },
  );
}

function promptsFor(server: McpServer): void {
  server.registerPrompt(
    'reference-researcher',
    {
      title: 'Reference researcher',
      description: 'The default skill: how to find, create (with operator approval), search and curate reference topics.',
      argsSchema: { task: z.string().optional().describe('What you are working on (optional): added after the skill.') },
    },
    async ({ task }) => {
      const skill = await readSkill();
      const text = task ? `${skill}\n\n---\n\nCurrent task: ${task}` : skill;
      return {
        description: 'The reference-researcher skill',
        messages: [{ role: 'user', content: { type: 'text', text } }],
      };
    },
  );
}

/** Resource reads fail as protocol errors (there is no isError for them): keep the stable code in the message. */
function wrapResourceErrors(server: McpServer): void {
  const low = server.server as unknown as { _requestHandlers: Map<string, (req: unknown, extra: unknown) => Promise<unknown>> };
  const read = low._requestHandlers?.get('resources/read');
  if (!read) return;
  low._requestHandlers.set('resources/read', async (req, extra) => {
    try {
      return await read(req, extra);
    } catch (err) {
      if (err instanceof TkomaError) throw new Error(`${err.code}: ${err.message}`, { cause: err });
      throw err;
    }
  });
}

export function createShared(opts: McpOptions): Shared {
  const log = opts.log ?? ((m: string) => process.stderr.write(`tkoma-ref mcp: ${m}\n`));
  const warm = startWarm(opts.root, { embedderFlag: opts.embedderFlag, reconcileSeconds: opts.reconcileSeconds, serveSocket: opts.serveSocket, log, onIdle: opts.onIdle });
  const sessions = new Set<McpServer>();
  const ctx: ServerContext = {
    root: opts.root,
    embedderFlag: opts.embedderFlag,
    author: opts.author,
    warm,
    log,
    changed() {
      warm.touched();
      for (const s of sessions) if (s.isConnected()) s.sendResourceListChanged();
    },
  };
  return {
    ctx,
    warm,
    newSession(): McpServer {
      const server = new McpServer(
        { name: 'tkoma-ref', title: 'tkoma-ref reference library', version: packageVersion() },
        { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false }, resources: { listChanged: true }, prompts: {} } },
      );
      toolsFor(server, ctx);
      resourcesFor(server, ctx);
      promptsFor(server);
      wrapResourceErrors(server);
      sessions.add(server);
      server.server.onclose = () => sessions.delete(server);
      // Warm up once the client has finished the handshake (its tools/list usually follows at once).
      server.server.oninitialized = () => setTimeout(() => warm.kick(), 50).unref();
      return server;
    },
    async close(): Promise<void> {
      for (const s of sessions) await s.close().catch(() => undefined);
      await warm.close();
    },
  };
}

/**
 * Serves one client over stdin/stdout until stdin closes or a signal arrives.
 * @public loaded with import() by src/cli/mcp.ts, which static analysis does not follow.
 */
export async function runStdio(opts: McpOptions, untilStopped: Promise<void>): Promise<void> {
  const { LineTransport } = await import('./stdio-transport.js');
  const shared = createShared(opts);
  const server = shared.newSession();
  const transport = new LineTransport(process.stdin, process.stdout, shared.ctx.log);
  const stdinClosed = new Promise<void>((resolve) => {
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  const transportClosed = new Promise<void>((resolve) => {
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      resolve();
    };
  });
  await server.connect(transport);
  await Promise.race([stdinClosed, transportClosed, untilStopped]);
  await shared.close();
}
