import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Args } from '@oclif/core';

import { BaseCommand } from '../cli/base.js';
import { TkomaError } from '../lib/errors.js';
import { packageDir } from '../lib/store/root.js';

const SKILLS = ['reference-researcher'];

export default class Skill extends BaseCommand<typeof Skill> {
  static summary = 'Print a default skill (SKILL.md) for ghosts.';
  static args = { name: Args.string({ description: `Skill name (${SKILLS.join(', ')})`, default: 'reference-researcher' }) };
  static description = 'The skill teaches a ghost when and how to search references and to ask for new topics; paste it into the ghost\'s prompt or skills folder.';
  static examples = ['<%= config.bin %> skill', '<%= config.bin %> skill reference-researcher > SKILL.md', '<%= config.bin %> skill --json'];

  protected async execute(): Promise<{ name: string; content: string }> {
    const name = String(this.args.name);
    if (!SKILLS.includes(name)) throw new TkomaError('INVALID_ENUM', `unknown skill "${name}": one of ${SKILLS.join(', ')}`, { allowed: SKILLS });
    const content = await readFile(join(packageDir(), 'default-prompts', 'skills', name, 'SKILL.md'), 'utf8');
    return { name, content };
  }

  protected renderHuman(r: { content: string }): string {
    return r.content;
  }
}
