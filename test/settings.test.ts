import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { TkomaError } from '../src/lib/errors.js';
import { LIMIT_KEYS } from '../src/lib/safety/limits.js';
import { envSetting, renderSettingsTable, renderTomlTable, SETTINGS, TOML_KEYS } from '../src/lib/settings.js';
import { DEFAULT_CONFIG } from '../src/lib/store/config.js';

const projectDir = new URL('..', import.meta.url).pathname;

function block(readme: string, name: string): string | undefined {
  return new RegExp(`<!-- ${name}:begin[^\\n]*-->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(readme)?.[1];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** Reading a variable by its name: `env.TKOMA_REF_X`, `env['TKOMA_REF_X']` (deleting one from a child's copy is fine). */
const DIRECT_READ = /(?<!delete\s+(?:process\.)?)\benv\s*(?:\.|\[\s*['"`])TKOMA_REF_[A-Z0-9_]+/;
/** A variable's bare name as a value (`env: 'TKOMA_REF_X'`, a list of names): it belongs in SETTINGS. */
const BARE_NAME = /(['"`])TKOMA_REF_[A-Z0-9_]+\1/;

describe('settings', () => {
  it('the README tables are the ones rendered from the declarations', () => {
    const readme = readFileSync(join(projectDir, 'README.md'), 'utf8');
    expect(block(readme, 'settings'), 'README.md lost its settings markers').toBe(renderSettingsTable());
    expect(block(readme, 'toml'), 'README.md lost its toml markers').toBe(renderTomlTable());
    for (const spec of Object.values(SETTINGS)) expect(readme).toContain(`\`${spec.env}\``);
  });

  it('declares every key tkoma-ref.toml has', () => {
    const declared = TOML_KEYS.map((k) => k.key);
    for (const key of ['provider', 'model', 'url', 'recorded', 'chunks']) expect(declared).toContain(`[embedding] ${key}`);
    for (const key of Object.keys(DEFAULT_CONFIG.watch)) expect(declared).toContain(`[watch] ${key}`);
    for (const key of LIMIT_KEYS) expect(declared).toContain(`[limits] ${key}`);
    const tables = new Set(declared.map((k) => /^\[(\w+)\]/.exec(k)![1]));
    for (const key of ['[network] allow', '[sources] local_roots', '[approval] mode', '[crawl] max_pages_cap']) expect(declared).toContain(key);
    expect([...tables].sort()).toEqual([...Object.keys(DEFAULT_CONFIG), 'limits', 'network', 'sources', 'approval', 'crawl'].sort());
  });

  it('no code outside settings.ts reads a TKOMA_REF_ variable by name', () => {
    const strays: string[] = [];
    for (const file of [...sourceFiles(join(projectDir, 'src')), ...sourceFiles(join(projectDir, 'bin'))]) {
      if (file.endsWith(join('src', 'lib', 'settings.ts'))) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (DIRECT_READ.test(line) || BARE_NAME.test(line)) strays.push(`${file.slice(projectDir.length)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(strays).toEqual([]);
  });

  it('the stray check sees the forms it is meant to catch', () => {
    expect(DIRECT_READ.test('const x = process.env.TKOMA_REF_ROOT;')).toBe(true);
    expect(DIRECT_READ.test("if (env['TKOMA_REF_DEBUG']) {")).toBe(true);
    expect(DIRECT_READ.test('delete env.TKOMA_REF_EMBEDDER;')).toBe(false);
    expect(BARE_NAME.test("ghost: Flags.string({ env: 'TKOMA_REF_GHOST' }),")).toBe(true);
    expect(BARE_NAME.test("'set TKOMA_REF_OPENAI_API_KEY or OPENAI_API_KEY'")).toBe(false);
  });

  it('stays light: settings.ts imports nothing but errors.ts (it is on every start-up path)', () => {
    const text = readFileSync(join(projectDir, 'src', 'lib', 'settings.ts'), 'utf8');
    const specs = [...text.matchAll(/^import\s[^;\n]*?from\s+'([^']+)';$/gm)].map((m) => m[1]);
    expect(specs).toEqual(['./errors.js']);
    expect(text).not.toMatch(/await import\(/);
  });

  it('parses each kind and names the variable when a value is malformed', () => {
    expect(envSetting('lockTimeout', { TKOMA_REF_LOCK_TIMEOUT: '2.5' })).toBe(2.5);
    expect(envSetting('lockTimeout', {})).toBeUndefined();
    expect(envSetting('lockTimeout', { TKOMA_REF_LOCK_TIMEOUT: '  ' })).toBeUndefined();
    expect(() => envSetting('lockTimeout', { TKOMA_REF_LOCK_TIMEOUT: 'soon' })).toThrow(/TKOMA_REF_LOCK_TIMEOUT.*'soon'/);
    expect(() => envSetting('lockTimeout', { TKOMA_REF_LOCK_TIMEOUT: '-1' })).toThrow(TkomaError);
    expect(envSetting('noServer', {})).toBe(false);
    expect(envSetting('noServer', { TKOMA_REF_NO_SERVER: 'YES' })).toBe(true);
    expect(envSetting('noServer', { TKOMA_REF_NO_SERVER: '0' })).toBe(false);
    expect(() => envSetting('noServer', { TKOMA_REF_NO_SERVER: 'maybe' })).toThrow(/TKOMA_REF_NO_SERVER/);
    expect(envSetting('crashAt', { TKOMA_REF_CRASH_AT: 'a:locked, pause@b ,' })).toEqual(['a:locked', 'pause@b']);
    expect(envSetting('root', { TKOMA_REF_ROOT: ' /x ' })).toBe('/x');
  });
});
