import { BaseCommand } from '../cli/base.js';
import { paint } from '../cli/render.js';
import { type DoctorReport, runDoctor } from '../lib/doctor.js';

export default class Doctor extends BaseCommand<typeof Doctor> {
  static summary = 'Check this machine and knowledge root, and explain what is off.';
  static description =
    'Checks git, the knowledge root and its remotes, locks held and by whom, unfinished mutations, index health and pending work, which embedders can run here and which one is recorded; prints the MCP configuration snippet. Reads only, and exits 0 whatever it finds: the report (`ok` under --json) says whether something failed.';
  static examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --root ~/kb', '<%= config.bin %> doctor --json'];

  protected async execute(): Promise<DoctorReport> {
    return runDoctor(this.root(false), { bin: this.config.bin });
  }

  protected renderHuman(r: DoctorReport): string {
    const mark = { ok: paint('green', '✔', process.stdout), warn: paint('yellow', '!', process.stdout), fail: paint('red', '✖', process.stdout) };
    const pad = ' '.repeat(12);
    const lines = r.checks.flatMap((c) => [
      `${mark[c.status]} ${c.name.padEnd(11)} ${c.message}`,
      ...(c.hint ? [`${pad}→ ${c.hint}`] : []),
      // Which embedders could run here, one line each, under the embedder check.
      ...Object.entries((c.details?.available as Record<string, string> | undefined) ?? {}).map(([k, v]) => `${pad}${k.padEnd(13)} ${v}`),
    ]);
    lines.push('', 'MCP: add this to your agent host\'s configuration (e.g. .mcp.json):', r.mcp.snippet);
    return lines.join('\n');
  }
}
