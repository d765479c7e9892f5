/** The plumbing every tool handler shares: its context, argument checks, and result shapes. */
import { asTkomaError, TkomaError } from '../errors.js';
import type { CommitAuthor } from '../root-git.js';
import type { ELICITATION_SCHEMA } from './approval.js';
import type { Warm } from './warm.js';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** What one client session offers a call: its abilities and the request's own plumbing. */
export interface CallContext {
  signal: AbortSignal;
  /** Sends a progress notification when the client gave a progress token (no-op otherwise). */
  progress(message: string): void;
  /** Present when the client declared the elicitation capability. */
  elicit?: (message: string, schema: typeof ELICITATION_SCHEMA, signal: AbortSignal) => Promise<ElicitAnswer>;
  clientName?: string;
}

export interface ServerContext {
  root: string;
  embedderFlag?: string;
  author: CommitAuthor;
  warm: Warm;
  log(message: string): void;
  /** Something in the knowledge root changed (topics added or edited). */
  changed(): void;
}

export type Args = Record<string, unknown>;

export const invalid = (message: string, field?: string): TkomaError => new TkomaError('INVALID_INPUT', message, field ? { field } : {});

export function optType(args: Args, field: string, type: 'string' | 'boolean' | 'integer'): void {
  const v = args[field];
  if (v === undefined || v === null) return;
  const ok = type === 'integer' ? Number.isInteger(v) : typeof v === type;
  if (!ok) throw invalid(`\`${field}\` must be ${type === 'integer' ? 'a whole number' : `a ${type}`}`, field);
}

export function errorResult(err: unknown): ToolResult {
  const e = asTkomaError(err);
  const json = e.toJSON();
  return { isError: true, content: [{ type: 'text', text: `ERROR ${e.code}: ${e.message}` }], structuredContent: json };
}

export function ok(structured: Record<string, unknown>, text: string): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** The client cancelled the call before anything was committed. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled by the client');
    this.name = 'Cancelled';
  }
}
