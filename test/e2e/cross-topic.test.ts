/**
 * Issue 26 part 1 through the built binary and the MCP server, on real repositories (express and
 * zod's v3 build, as installed): a one-file topic holding the exact identifier `maxSockets` beats
 * the split-token matches (`maxAge`, `max`) of bigger topics in `--all`, and a search naming no
 * topic picks the topic whose files answer, even though no topic note mentions the identifier.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { call, connect, type Connected } from '../helpers/mcp.js';
import { freshRoot } from '../helpers/roots.js';

/** The installed package's files under `sub` (node_modules of its own left out). */
function packageFiles(pkg: string, sub = ''): Record<string, string> {
  const base = join(PROJECT, 'node_modules', pkg);
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      if (name === 'node_modules') continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else out[relative(base, abs)] = readFileSync(abs, 'utf8');
    }
  };
  walk(join(base, sub));
  return out;
}

describe('search across topics: exact identifiers, comparable scores, the right topic', () => {
  const tmp = tmpDir('tkoma-xtopic-');
  const root = join(tmp.path, 'kb');
  let mcp: Connected;

  beforeAll(async () => {
    await freshRoot(root);
    const repos = {
      'topic-widget-pool': makeRepo(join(tmp.path, 'widget'), {
        'docs/pool.md': '# Widget pool\n\nSet `maxSockets` to bound concurrency: the pool opens at most that many sockets per host.\n',
      }),
      'topic-express': makeRepo(join(tmp.path, 'express'), packageFiles('express')),
      'topic-zod': makeRepo(join(tmp.path, 'zod'), { 'README.md': readFileSync(join(PROJECT, 'node_modules/zod/README.md'), 'utf8'), ...packageFiles('zod', 'v3') }),
    };
    const titles: Record<string, string> = { 'topic-widget-pool': 'Widget pool', 'topic-express': 'Express web framework', 'topic-zod': 'Zod schema validation' };
    for (const [id, repo] of Object.entries(repos)) {
      const req = { topic_id: id, title: titles[id], sources: [{ type: 'git', url: repo.url }] };
      const r = await cli(['topic', 'create', '--yes', '--json', '--input', JSON.stringify(req)], { root });
      expect(r.code, r.stderr).toBe(0);
    }
    mcp = await connect(root);
  });
  afterAll(async () => {
    await mcp?.close();
    tmp.cleanup();
  });

  it('--all: the one-file topic with the exact identifier comes first, above maxAge/max matches', async () => {
    const r = await cli(['search', 'maxSockets', '--all', '--limit', '50', '--json', '--no-server'], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.topics_searched.sort()).toEqual(['topic-express', 'topic-widget-pool', 'topic-zod']);
    expect(r.json.results[0]).toMatchObject({ topic_id: 'topic-widget-pool', path: 'docs/pool.md' });
    // Split-token matches of the big topics are still there, below it.
    expect(r.json.results.some((h: { topic_id: string }) => h.topic_id !== 'topic-widget-pool')).toBe(true);
  });

  it('no topic named: the topic whose files hold the answer is chosen, and answers as --topic does', async () => {
    const r = await cli(['search', 'maxSockets', '--json', '--no-server'], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.topic.topic_id).toBe('topic-widget-pool');
    expect(r.json.results[0].path).toBe('docs/pool.md');
    const given = await cli(['search', 'maxSockets', '--topic', 'topic-widget-pool', '--json', '--no-server'], { root });
    expect(r.json.results).toEqual(given.json.results);

    // Questions aimed at the big topics still go to them.
    const zod = await cli(['search', 'safeParse returns success or error instead of throwing', '--json', '--no-server'], { root });
    expect(zod.json.topic.topic_id).toBe('topic-zod');
    const express = await cli(['search', 'res.cookie maxAge', '--json', '--no-server'], { root });
    expect(express.json.topic.topic_id).toBe('topic-express');
  });

  it('MCP reference_search: topic "all" and no topic give the same answers as the CLI', async () => {
    const all = await call(mcp, 'reference_search', { question: 'maxSockets', topic: 'all', limit: 50 });
    expect(all.isError, all.text).toBe(false);
    expect(all.data.topics_searched).toHaveLength(3);
    expect(all.data.results[0]).toMatchObject({ topic_id: 'topic-widget-pool', path: 'docs/pool.md' });
    const cliAll = await cli(['search', 'maxSockets', '--all', '--limit', '50', '--json', '--no-server'], { root });
    expect(all.data.results.map((h: { id: string }) => h.id)).toEqual(cliAll.json.results.map((h: { id: string }) => h.id));

    const none = await call(mcp, 'reference_search', { question: 'maxSockets' });
    expect(none.isError, none.text).toBe(false);
    expect(none.data.topic.topic_id).toBe('topic-widget-pool');
    expect(none.data.results[0].path).toBe('docs/pool.md');
  });
});

/**
 * A bundle (one top-level wrapper the chunker can only cut into windows, as emscripten glue is)
 * restates a runtime's strings: its windows rank in its own topic but are no evidence of what a
 * topicless question is about (topic-choice.ts isBundleWindow). Without that rule the bundle's
 * many middling windows outweigh the one page that answers, and the bundle's topic is chosen.
 */
describe('search across topics: a bundle is no evidence of the topic', () => {
  const tmp = tmpDir('tkoma-xbundle-');
  const root = join(tmp.path, 'kb');
  const question = "take a flag's value from an environment variable";

  beforeAll(async () => {
    await freshRoot(root);
    const glue = ['// Runtime glue generated for the module loader.', 'var Runtime = (() => {', '  var Module = {};'];
    for (let i = 0; i < 1500; i++) {
      glue.push(
        i % 100 < 3
          ? `  var FLAG_${i} = process.env['RUNTIME_${i}'] ?? Module.defaults[${i}]; // a flag takes its value from the environment variable RUNTIME_${i}`
          : `  var slot_${i} = table[${i}] | (heap[${i % 97}] << ${i % 13}); // loader table entry ${i}`,
      );
    }
    glue.push('  return Module;', '})();');
    const repos = {
      'topic-flags': makeRepo(join(tmp.path, 'flags'), {
        'README.md': '# cli-flags\n\nParse command-line flags and arguments.\n',
        'docs/flags.md':
          "# Flags\n\nA flag can take its value from an environment variable: name the variable in the flag's `env` property, and the parser reads it when the flag is not given on the command line. Boolean flags accept `--no-` prefixes, string flags accept a list of options, and integer flags are checked against their minimum and maximum. Each definition may also give a description, a short character, a help group and a list of aliases shown in the help output.\n\n## Defaults\n\nA flag without a value falls back to its `default`.\n",
      }),
      'topic-runtime': makeRepo(join(tmp.path, 'runtime'), { 'README.md': '# wasm-runtime\n\nA WebAssembly runtime and its JavaScript glue.\n', 'lib/runtime.cjs': `${glue.join('\n')}\n` }),
    };
    for (const [id, repo] of Object.entries(repos)) {
      const req = { topic_id: id, title: id.slice('topic-'.length), sources: [{ type: 'git', url: repo.url }] };
      const r = await cli(['topic', 'create', '--yes', '--json', '--input', JSON.stringify(req)], { root });
      expect(r.code, r.stderr).toBe(0);
    }
  });
  afterAll(() => tmp.cleanup());

  it('no topic named: the page that answers picks its topic over the bundle’s windows, which still rank in their own topic', async () => {
    const own = await cli(['search', question, '--topic', 'topic-runtime', '--json', '--no-server'], { root });
    expect(own.code, own.stderr).toBe(0);
    expect(own.json.results[0]).toMatchObject({ path: 'lib/runtime.cjs' });
    expect(own.json.results[0].title).toMatch(/\(top level\) \(part \d+\/\d+\)$/);

    const r = await cli(['search', question, '--json', '--no-server'], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.topic.topic_id).toBe('topic-flags');
    expect(r.json.results[0].path).toBe('docs/flags.md');
  });
});
