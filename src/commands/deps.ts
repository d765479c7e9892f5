import { Args, Flags } from '@oclif/core';

import { BaseCommand } from '../cli/base.js';
import { table } from '../cli/render.js';
import type { DepsReport } from '../lib/deps/deps.js';

export default class Deps extends BaseCommand<typeof Deps> {
  static summary = "The project's dependencies against the topics: which have references, at which version.";
  static description =
    'Reads the lockfiles in PATH (default: the working folder): package-lock.json / npm-shrinkwrap.json (workspaces and npm: aliases included), pnpm-lock.yaml, yarn.lock, Cargo.lock (with Cargo.toml for dev-dependencies), go.mod. Lists each direct dependency at its locked version with the topic that covers it (by npm package source, then repository URL, then topic id or tag) and its status: same, topic older, topic newer, version unknown (the topic follows a branch), no topic. With --requests, adds ready `topic create --input` requests pinned to the locked versions for the missing and outdated ones; each still needs approval. Nothing is fetched.';
  static examples = ['<%= config.bin %> deps', '<%= config.bin %> deps ../my-app --json', '<%= config.bin %> deps --requests --json'];
  static args = { path: Args.string({ description: 'Project folder or lockfile (default: the working folder).', required: false }) };
  static flags = {
    requests: Flags.boolean({ description: 'Add create requests for dependencies with no topic at their version.', default: false }),
    'no-dev': Flags.boolean({ description: 'Leave out development-only dependencies.', default: false }),
  };

  protected async execute(): Promise<DepsReport> {
    const { projectDeps } = await import('../lib/deps/deps.js');
    return projectDeps(this.root(), String(this.args.path ?? '.'), { requests: this.flags.requests, dev: !this.flags['no-dev'] });
  }

  protected renderHuman(r: DepsReport): string {
    const rows = r.dependencies.map((d) => ({
      dependency: `${d.alias ? `${d.alias} → ` : ''}${d.name}${d.dev ? ' (dev)' : ''}`,
      version: d.version,
      status: d.status,
      topic: d.topic_id ? `${d.topic_id}${d.topic_version ? ` @ ${d.topic_version}` : ''}` : '-',
      where: d.workspace ?? '',
    }));
    const counts = Object.entries(r.counts)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    const out = [
      `${r.lockfiles.join(', ')}: ${r.dependencies.length} direct dependencies (${counts || 'none'})`,
      table(rows, [
        { key: 'dependency', header: 'DEPENDENCY', max: 40 },
        { key: 'version', header: 'LOCKED' },
        { key: 'status', header: 'STATUS' },
        { key: 'topic', header: 'TOPIC', max: 40 },
        { key: 'where', header: 'WORKSPACE', max: 30 },
      ]),
    ];
    if (r.requests) {
      out.push('', r.requests.length ? `Create requests (each needs approval): tkoma-ref topic create --input '<request>'` : 'Every dependency has a topic at its version.');
      for (const q of r.requests) out.push(JSON.stringify(q));
      for (const n of r.no_request ?? []) out.push(`(no source to name for ${n})`);
    }
    return out.join('\n');
  }
}
