import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { TkomaError } from '../src/lib/errors.js';
import { envSetting, renderSettingsTable, SETTINGS } from '../src/lib/settings.js';

describe('settings', () => {
  it('the README table is the one rendered from the declarations', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const block = /<!-- settings:begin[^\n]*-->\n([\s\S]*?)\n<!-- settings:end -->/.exec(readme);
    expect(block, 'README.md lost its settings markers').not.toBeNull();
    expect(block![1]).toBe(renderSettingsTable());
    for (const spec of Object.values(SETTINGS)) expect(readme).toContain(`\`${spec.env}\``);
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
