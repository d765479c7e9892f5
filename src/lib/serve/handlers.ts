/**
 * What the serve process does with one request: check that it can give exactly the answer the
 * client would compute in-process (same root, same embedder choice), then run the same library
 * function the command runs. Anything it cannot match is a `fallback`, never a different answer.
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';

import type { EmbedderSettings } from '../embedding/types.js';
import { asTkomaError, TkomaError } from '../errors.js';
import { FileMemo } from '../file-memo.js';
import type { RootConfig } from '../store/config.js';
import { embedderEnv, OPS, type Request, type Response } from './protocol.js';

export interface HandlerContext {
  root: string;
  /** realpath of root: requests naming the same folder by another path are still ours. */
  realRoot: string;
  /** --embedder the server was started with (it resolves its embedder from this + its env). */
  embedderFlag?: string;
  /** True while a watcher keeps the index in step with the files (no per-query stat walk). */
  watching(): boolean;
  /** Facts for `ping`. */
  describe(): Record<string, unknown>;
}

/** The root's config as sameEmbedder last read it (settingsFromEnv only reads it). */
const configs = new FileMemo<RootConfig>();

const fallback = (id: Request['id'], why: string): Response => ({ id, ok: false, fallback: why });

function bad(message: string, field?: string): TkomaError {
  return new TkomaError('INVALID_INPUT', message, field ? { field } : {});
}

function optional(args: Record<string, unknown>, field: string, type: 'string' | 'number' | 'boolean'): void {
  const v = args[field];
  if (v !== undefined && typeof v !== type) throw bad(`\`${field}\` must be a ${type}`, field);
}

/** A well-formed request, or a TkomaError saying what is wrong with it. */
export function parseRequest(msg: unknown): Request {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) throw bad('a request is a JSON object');
  const r = msg as Record<string, unknown>;
  if (typeof r.id !== 'number' && typeof r.id !== 'string') throw bad('`id` must be a number or a string', 'id');
  if (typeof r.op !== 'string' || !(OPS as readonly string[]).includes(r.op)) throw bad(`\`op\` must be one of ${OPS.join(', ')}`, 'op');
  if (r.args !== undefined && (typeof r.args !== 'object' || r.args === null || Array.isArray(r.args))) throw bad('`args` must be an object', 'args');
  if (r.root !== undefined && typeof r.root !== 'string') throw bad('`root` must be a string', 'root');
  if (r.env !== undefined) {
    if (typeof r.env !== 'object' || r.env === null || Array.isArray(r.env)) throw bad('`env` must be an object', 'env');
    for (const v of Object.values(r.env)) if (typeof v !== 'string') throw bad('`env` values must be strings', 'env');
  }
  return r as unknown as Request;
}

/**
 * Whether the client, with its environment and --embedder, would pick the embedder this server
 * picks. Both sides go through settingsFromEnv with the root's current config. Anything that
 * fails here (bad flag, broken config) is left to the in-process path to report.
 */
async function sameEmbedder(ctx: HandlerContext, env: Record<string, string> | undefined, flag: unknown): Promise<boolean> {
  if (flag !== undefined && typeof flag !== 'string') return false;
  const { settingsFromEnv } = await import('../embedding/index.js');
  const { CONFIG_FILE, readConfig } = await import('../store/config.js');
  try {
    // Read again only when the file changed: open, read and close were a tenth of a short answer.
    const config = (await configs.get(join(ctx.root, CONFIG_FILE), () => readConfig(ctx.root))).embedding as Partial<EmbedderSettings>;
    const theirs = settingsFromEnv(env ?? {}, config, flag);
    const ours = settingsFromEnv(embedderEnv(process.env), config, ctx.embedderFlag);
    return JSON.stringify(theirs) === JSON.stringify(ours);
  } catch {
    return false;
  }
}

async function search(ctx: HandlerContext, args: Record<string, unknown>): Promise<unknown> {
  optional(args, 'question', 'string');
  optional(args, 'topic', 'string');
  optional(args, 'all', 'boolean');
  optional(args, 'limit', 'number');
  optional(args, 'maxChars', 'number');
  optional(args, 'explain', 'boolean');
  // `mode` is not checked here: searchReferences rejects a bad one with the in-process error.
  const { searchReferences } = await import('../search/search.js');
  type Req = Parameters<typeof searchReferences>[1];
  return searchReferences(ctx.root, {
    question: args.question as string,
    topic: args.topic as string | undefined,
    all: args.all as boolean | undefined,
    limit: args.limit as number | undefined,
    maxChars: args.maxChars as number | undefined,
    context: args.context as Req['context'],
    explain: args.explain as boolean | undefined,
    mode: args.mode as Req['mode'],
    // Checked equal to the client's choice: resolving our own reuses the loaded model.
    embedderFlag: ctx.embedderFlag,
    syncFiles: !ctx.watching(),
  });
}

async function topicSearch(ctx: HandlerContext, args: Record<string, unknown>): Promise<unknown> {
  optional(args, 'query', 'string');
  optional(args, 'limit', 'number');
  optional(args, 'includeObsolete', 'boolean');
  const { searchTopics } = await import('../search/search.js');
  return searchTopics(ctx.root, args.query as string, {
    limit: args.limit as number | undefined,
    includeObsolete: args.includeObsolete as boolean | undefined,
    embedderFlag: ctx.embedderFlag,
  });
}

/** Answers one parsed request. Never throws: failures become error responses. */
export async function handleRequest(ctx: HandlerContext, req: Request): Promise<Response> {
  const args = req.args ?? {};
  try {
    if (req.root !== undefined && req.root !== ctx.root) {
      const real = await realpath(req.root).catch(() => null);
      if (real !== ctx.realRoot) return fallback(req.id, 'this server answers for another root');
    }
    if (req.op === 'ping') return { id: req.id, ok: true, result: ctx.describe() };
    // Lexical mode never consults an embedder, in-process or here.
    const needsEmbedder = !(req.op === 'search' && args.mode === 'lexical');
    if (needsEmbedder && !(await sameEmbedder(ctx, req.env, args.embedderFlag))) {
      return fallback(req.id, 'the request asks for another embedder than this server uses');
    }
    const result = req.op === 'search' ? await search(ctx, args) : await topicSearch(ctx, args);
    return { id: req.id, ok: true, result };
  } catch (err) {
    return { id: req.id, ok: false, error: asTkomaError(err).toJSON().error as { code: string; message: string } };
  }
}
