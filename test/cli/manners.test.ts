/**
 * Issue 13 through the real binary: what a person meets in the first ten minutes. TTY cases run
 * under a pseudo-terminal with util-linux `script` (skipped where it is missing).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

/** Runs the binary under a pseudo-terminal, typing `input`; returns everything the terminal showed and the exit status. */
function inTerminal(args: string[], root: string, input = '', cols?: number): { out: string; code: number } {
  const quoted = [process.execPath, BIN, ...args, '--root', root].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const cmd = `${cols !== undefined ? `stty cols ${cols}; ` : ''}${quoted}`;
  const r = spawnSync('script', ['-qfec', cmd, '/dev/null'], {
    input,
    encoding: 'utf8',
    env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' },
    timeout: 600_000, // a hang net only
  });
  return { out: r.stdout.replace(/\r/g, ''), code: r.status ?? -1 };
}

describe('a CLI with manners', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  let repoUrl = '';

  beforeAll(async () => {
    await freshRoot(root);
    repoUrl = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Widgetron\n\nWidgets spin.\n', 'src/spin.py': 'def spin():\n    return 1\n' }).url;
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Widgetron', '--git', repoUrl], { root });
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  describe('1. unknown commands, --json everywhere, help, completion', () => {
    it('a typo gets "did you mean", as JSON under --json', async () => {
      const r = await cli(['serach', 'foo', '--json'], { root });
      expect(r.code).toBe(2);
      expect(r.json.error.code).toBe('UNKNOWN_COMMAND');
      expect(r.json.error.suggestions).toEqual(['search']);
      const h = await cli(['topic', 'lsit'], { root });
      expect(h.code).toBe(2);
      expect(h.stderr.trim()).toMatch(/^Error \[UNKNOWN_COMMAND\]: unknown command `topic lsit`; did you mean `topic list`\?/);
      expect(h.stdout).toBe('');
    });

    it('bad flags and --version answer JSON under --json', async () => {
      const bad = await cli(['topic', 'recent', '--limt', '3', '--json'], { root });
      expect(bad.code).toBe(2);
      expect(bad.json.error.message).toBe('unknown flag --limt: did you mean --limit? (see --help)');
      const top = await cli(['--bogus', '--json']);
      expect(top.code).toBe(2);
      expect(top.json.error.code).toBe('UNKNOWN_COMMAND');
      const v = await cli(['--version', '--json']);
      expect(v.code).toBe(0);
      expect(v.json).toMatchObject({ name: 'tkoma-ref', version: expect.any(String) });
    });

    it('help <command> works, for commands and topics, and as JSON', async () => {
      const h = await cli(['help', 'search']);
      expect(h.code).toBe(0);
      expect(h.stdout).toContain('$ tkoma-ref search [QUESTION]');
      const t = await cli(['help', 'topic', 'create']);
      expect(t.stdout).toContain('$ tkoma-ref topic create');
      const j = await cli(['help', 'get', '--json']);
      expect(j.json.command).toBe('get');
      expect(j.json.examples.length).toBeGreaterThanOrEqual(2);
      const n = await cli(['help', 'serch', '--json']);
      expect(n.code).toBe(2);
      expect(n.json.error.suggestions).toEqual(['search']);
    });

    it('completion for bash completes commands, subcommands and flags from the manifest', async () => {
      const r = await cli(['completion', 'bash']);
      expect(r.code).toBe(0);
      const script = join(tmp.path, 'complete.bash');
      writeFileSync(script, r.stdout);
      const complete = (line: string[]): string[] => {
        const prog = `source ${script}; COMP_WORDS=(${line.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${line.length - 1}; _tkoma_ref; printf '%s\\n' "\${COMPREPLY[@]}"`;
        return execFileSync('bash', ['-c', prog], { encoding: 'utf8' }).split('\n').filter(Boolean);
      };
      expect(complete(['tkoma-ref', 'sea'])).toEqual(['search']);
      expect(complete(['tkoma-ref', 'topic', 'l'])).toEqual(['list']);
      expect(complete(['tkoma-ref', 'search', 'q', '--li'])).toEqual(['--limit']);
      expect(complete(['tkoma-ref', 'search', 'q', '--mode', 'l'])).toEqual(['lexical']);
      expect(complete(['tkoma-ref', ''])).toEqual(expect.arrayContaining(['doctor', 'completion', 'topic', 'index', 'file', 'search']));
      expect(complete(['tkoma-ref', 'search', 'q', '--embedder', 'use'])).toEqual(['use-lite']);
      // Topic ids come from the root the script's own binary finds: put one on PATH, as an install would.
      const binDir = join(tmp.path, 'bin');
      mkdirSync(binDir, { recursive: true });
      writeFileSync(join(binDir, 'tkoma-ref'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
      chmodSync(join(binDir, 'tkoma-ref'), 0o755);
      const completeIn = (line: string[]): string[] => {
        const prog = `source ${script}; COMP_WORDS=(${line.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${line.length - 1}; _tkoma_ref; printf '%s\\n' "\${COMPREPLY[@]}"`;
        const env = { ...process.env, PATH: `${binDir}:${process.env.PATH}`, TKOMA_REF_ROOT: root };
        return execFileSync('bash', ['-c', prog], { encoding: 'utf8', env }).split('\n').filter(Boolean);
      };
      expect(completeIn(['tkoma-ref', 'search', 'q', '--topic', 'topic-w'])).toEqual(['topic-widgetron']);
      expect(completeIn(['tkoma-ref', 'topic', 'show', 'topic-'])).toEqual(['topic-widgetron']);
      expect(completeIn(['tkoma-ref', 'refresh', ''])).toEqual(['topic-widgetron']);
      for (const shell of ['zsh', 'fish']) {
        const s = await cli(['completion', shell]);
        expect(s.code).toBe(0);
        expect(s.stdout).toContain('topic');
        const bin = spawnSync(shell, ['--version']);
        if (bin.status === 0) {
          const f = join(tmp.path, `complete.${shell}`);
          writeFileSync(f, s.stdout);
          expect(spawnSync(shell, ['-n', f]).status, `${shell} -n`).toBe(0);
        }
      }
      const wrong = await cli(['completion', 'tcsh', '--json']);
      expect(wrong.code).toBe(2);
    });
  });

  describe('2-4. errors that help', () => {
    it('bad flag values keep their reason', async () => {
      for (const v of ['abc', '0']) {
        const r = await cli(['search', 'spin', '--limit', v, '--json'], { root });
        expect(r.code).toBe(2);
        expect(r.json.error.message).toBe(`--limit must be a whole number from 1 to 200 (got '${v}')`);
      }
      const h = await cli(['topic', 'recent', '--limit', 'x'], { root });
      expect(h.stderr.trim()).toBe("Error [INVALID_INPUT]: --limit must be a whole number from 1 to 1000 (got 'x')");
    });

    it('a flag error names its field and code as the same mistake in --input does', async () => {
      const limit = await cli(['search', 'spin', '--limit', 'abc', '--json'], { root });
      expect(limit.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'limit' });
      const flag = await cli(['search', 'spin', '--mode', 'fuzzy', '--json'], { root });
      const input = await cli(['search', '--input', '{"question":"spin","mode":"fuzzy"}', '--json'], { root });
      expect(flag.code).toBe(2);
      expect(input.json.error).toMatchObject({ code: 'INVALID_ENUM', field: 'mode', allowed: ['hybrid', 'lexical', 'vector'] });
      expect(flag.json.error).toMatchObject({ code: 'INVALID_ENUM', field: 'mode', allowed: ['hybrid', 'lexical', 'vector'] });
      const dashed = await cli(['topic', 'update', 'widgetron', '--trust-score', 'x', '--json'], { root });
      expect(dashed.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'trust_score' });
    });

    it('init says what to do next; the embedder help names the real error code', async () => {
      const r = await cli(['init'], { root: join(tmp.path, 'kb-next') });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Next: create a first topic');
      expect(r.stdout).toMatch(/topic create --title .* --root /);
      const h = await cli(['index', 'embedder', 'set', '--help']);
      expect(h.stdout.replace(/\s+/g, ' ')).toContain('EMBEDDER_UNAVAILABLE');
    });

    it('errors name flags when flags were used; JSON field names under --input', async () => {
      const r = await cli(['get', '--topic', 'widgetron', '--start-line', '3', '--end-line', '1'], { root });
      expect(r.code).toBe(2);
      const f = await cli(['file', 'status', '--path', 'README.md', '--status', 'obsolete', '--reason', 'x'], { root });
      expect(f.code).toBe(2);
      expect(f.stderr).toContain('--topic');
      expect(f.stderr).not.toContain('got undefined');
    });

    it('TOPIC_NOT_FOUND suggests the closest ids and topic list', async () => {
      const r = await cli(['get', '--topic', 'topic-widgetorn', '--json'], { root });
      expect(r.code).toBe(3);
      expect(r.json.error.suggestions).toEqual(['topic-widgetron']);
      expect(r.json.error.message).toContain('topic list');
      const s = await cli(['search', 'spin', '--topic', 'widgetorn', '--json'], { root });
      expect(s.json.error.suggestions).toEqual(['topic-widgetron']);
    });

    it('short topic names work everywhere search accepts them', async () => {
      const g = await cli(['get', '--topic', 'widgetron', '--path', 'README.md', '--json'], { root });
      expect(g.code, g.stderr).toBe(0);
      expect(g.json.topic_id).toBe('topic-widgetron');
      const s = await cli(['topic', 'show', 'widgetron', '--json'], { root });
      expect(s.json.topic_id).toBe('topic-widgetron');
      const n = await cli(['get', '--id', 'widgetron/README.md', '--json'], { root });
      expect(n.json.path).toBe('README.md');
    });
  });

  describe('5, 10. readable output', () => {
    it('index rebuild prints words, not JSON; JSON only under --json', async () => {
      const r = await cli(['index', 'rebuild'], { root });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Rebuilt the index of 1 topic: 2 files, \d+ chunks?, 0 vectors/);
      expect(() => JSON.parse(r.stdout)).toThrow();
      expect(r.stderr).not.toMatch(/chunk \d+\/\d+/); // no per-chunk lines in a log
      const j = await cli(['index', 'rebuild', '--json'], { root });
      expect(j.json.topics['topic-widgetron'].files).toBe(2);
    });

    it('no "vector search unavailable" on every search after choosing none', async () => {
      const r = await cli(['search', 'spin', '--topic', 'widgetron'], { root });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain('vector search unavailable');
    });

    it('"1 file", not "1 files"', async () => {
      const up = makeRepo(join(tmp.path, 'one'), { 'ONLY.md': '# Only\n\nOne file.\n' });
      const r = await cli(['topic', 'create', '--yes', '--title', 'Only One', '--git', up.url], { root });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('1 file,');
      expect(r.stdout).not.toContain('1 files');
    });

    it('a failed source shows ✖ and its reason once; one line per step without a terminal', async () => {
      const r = await cli(['topic', 'create', '--yes', '--title', 'Half', '--git', repoUrl, '--git', `file://${tmp.path}/nope`], { root });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/✖ Fetch nope/);
      expect(r.stderr).not.toMatch(/✔ Fetch nope/);
      expect(r.stderr.split('Cannot reach').length + r.stdout.split('Cannot reach').length - 2).toBe(2); // the warning, and the ✗ line of the result
      const all = await cli(['topic', 'create', '--yes', '--title', 'None', '--git', `file://${tmp.path}/nope`], { root });
      expect(all.code).toBe(5);
      expect(all.stderr.split('does not appear').length - 1).toBe(1); // printed once
    });

    it('an obsolete topic searched by name says it is obsolete', async () => {
      // A copy of the file's root (its topic made once in beforeAll), so the other tests keep theirs current.
      const copy = join(tmp.path, 'kb-obsolete');
      cpSync(root, copy, { recursive: true });
      expect((await cli(['topic', 'update', 'widgetron', '--status', 'obsolete'], { root: copy })).code).toBe(0);
      const r = await cli(['search', 'widgets', '--topic', 'widgetron'], { root: copy });
      expect(r.stdout).toContain('is obsolete');
      expect(r.stdout).not.toContain('No results.');
    });
  });

  describe('8. help text', () => {
    it('the top level has a getting started and describes topics by themselves', async () => {
      const r = await cli(['--help']);
      expect(r.stdout).toContain('GETTING STARTED');
      expect(r.stdout).toMatch(/topic\s+Reference topics/);
      expect(r.stdout).toMatch(/index\s+The derived search index/);
      const t = await cli(['topic', '--help']);
      expect(t.stdout).toContain('EXAMPLES');
    });

    it('every command has 2-3 examples and no "seed" wording', async () => {
      const manifest = JSON.parse(execFileSync('cat', [join(BIN, '..', '..', 'oclif.manifest.json')], { encoding: 'utf8' }));
      for (const [id, c] of Object.entries<any>(manifest.commands)) {
        expect(c.examples?.length ?? 0, id).toBeGreaterThanOrEqual(2);
        expect(c.examples.length, id).toBeLessThanOrEqual(3);
        expect(JSON.stringify(c), id).not.toMatch(/seed/i);
        // A line of help breaks only where a sentence ends: oclif wraps to the terminal itself.
        for (const text of [c.description ?? '', ...Object.values<any>(c.flags ?? {}).map((f) => f.description ?? '')]) {
          const broken = text.split('\n').slice(0, -1).filter((l: string) => l.trim() && !/[.:!?)]$/.test(l.trim()) && !/^\s*[-`]/.test(l));
          expect(broken, `${id}: a line break mid-sentence`).toEqual([]);
        }
      }
    });
  });

  describe('6. approval at a terminal', () => {
    it('has a pseudo-terminal to run in (`script`, from util-linux)', () => expect(hasScript).toBe(true));

    it('delete asks; "n" declines with DECLINED (exit 12), nothing changes', () => {
      const before = git(root, 'rev-parse', 'HEAD');
      const r = inTerminal(['delete', 'widgetron'], root, 'n\n');
      expect(r.out).toContain('Delete topic topic-widgetron');
      // The operator's "no" is an answer, not an error: said plainly, exit 12.
      expect(r.out).toContain('not deleted: topic-widgetron is unchanged');
      expect(r.out).not.toContain('Error');
      expect(r.code).toBe(12);
      expect(git(root, 'rev-parse', 'HEAD')).toBe(before);
    });

    it('topic create shows the summary and asks; "y" creates, "n" declines', () => {
      const up = makeRepo(join(tmp.path, 'ask'), { 'A.md': '# A\n\nText.\n' });
      const no = inTerminal(['topic', 'create', '--title', 'Asked', '--git', up.url], root, 'n\n');
      expect(no.out).toContain('Approve? [y/N]');
      expect(no.out).toContain('was not approved');
      expect(no.out).not.toContain('Error');
      expect(no.code).toBe(12);
      const yes = inTerminal(['topic', 'create', '--title', 'Asked', '--git', up.url], root, 'y\n');
      expect(yes.out).toContain('Created topic-asked');
      expect(yes.code).toBe(0);
      // Asked at the terminal, answered there: no request is left for `approvals`.
      const asked = execFileSync(process.execPath, [BIN, 'approvals', '--all', '--json', '--root', root], { encoding: 'utf8' });
      expect((JSON.parse(asked).requests as { topic_id: string }[]).filter((q) => q.topic_id === 'topic-asked')).toEqual([]);
    });

    it('a terminal with 0 columns does not print one character per line', () => {
      const r = inTerminal(['index', 'rebuild'], root, '', 0);
      expect(r.code).toBe(0);
      const lines = r.out.split('\n').filter((l) => l.trim());
      expect(lines.filter((l) => l.trim().length === 1)).toEqual([]);
    });
  });

  it('11. doctor explains the root, locks, index and embedders, with the MCP snippet', async () => {
    const r = await cli(['doctor', '--json'], { root });
    expect(r.code).toBe(0);
    const names = r.json.checks.map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(['git', 'root', 'remotes', 'write-lock', 'index-lock', 'index', 'embedders']));
    expect(r.json.mcp.config.mcpServers['tkoma-ref'].args).toEqual(['mcp', '--root', root]);
    const h = await cli(['doctor'], { root });
    expect(h.stdout).toContain('✔ git');
    expect(h.stdout).toContain('mcpServers');
    const none = await cli(['doctor', '--json'], { root: join(tmp.path, 'nowhere') });
    expect(none.json.ok).toBe(false);
  });
});
