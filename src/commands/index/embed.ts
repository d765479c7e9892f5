import { Flags } from '@oclif/core';

import { BaseCommand } from '../../cli/base.js';

function duration(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '?';
  const t = Math.round(s);
  return t >= 3600 ? `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}m` : t >= 60 ? `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s` : `${t}s`;
}

export default class IndexEmbed extends BaseCommand<typeof IndexEmbed> {
  static summary = 'Build the pending vectors now, in the foreground, with progress (rate and ETA).';
  static description =
    'Topic notes first, then docs chunks, then code. Uses the recorded embedder (`index embedder set`); embedding runs outside every lock and the index lock is held only briefly per batch, so searches keep answering. Interrupt it at any time: what was embedded is kept in the cache.';
  static examples = ['<%= config.bin %> index embed', '<%= config.bin %> index embed --topic topic-dioxus-ui --json'];
  static flags = {
    topic: Flags.string({ description: 'Only this topic, chunk vectors included even where they are off by default (topic notes are always brought up to date).', multiple: true }),
  };

  protected async execute(): Promise<unknown> {
    const root = this.root();
    const { resolveEmbedder } = await import('../../lib/embedding/root-embedder.js');
    const { TkomaError } = await import('../../lib/errors.js');
    const { tryAcquire } = await import('../../lib/lock.js');
    const { readConfig } = await import('../../lib/store/config.js');
    const { chunkSetting, chunkVectorsFor } = await import('../../lib/vectors/space.js');
    const { buildVectors } = await import('../../lib/vectors/builder.js');
    const resolved = await resolveEmbedder(root);
    if (!resolved.embedder) throw new TkomaError('EMBEDDER_UNAVAILABLE', `no vectors can be built: ${resolved.reason ?? 'no embedder'}`);
    const got = tryAcquire(root, 'vectors', 'tkoma-ref index embed');
    if (!('release' in got)) {
      throw new TkomaError('LOCKED', `vectors of ${root} are being built by pid ${got.holder?.pid ?? '?'} (${got.holder?.command ?? 'another process'}); \`tkoma-ref index status\` shows what is pending`, {
        lock: 'vectors',
        ...(got.holder ? { holder: { pid: got.holder.pid, command: got.holder.command, since: got.holder.since } } : {}),
      });
    }
    const interactive = !this.flags.json && process.stderr.isTTY;
    let last = 0;
    let stop = false;
    const onSignal = (): void => {
      stop = true;
    };
    process.once('SIGINT', onSignal);
    try {
      const chunks = chunkVectorsFor(chunkSetting(await readConfig(root)), resolved.embedder.key);
      const report = await buildVectors(root, {
        embedder: resolved.embedder,
        chunks: chunks || Boolean(this.flags.topic),
        ...(this.flags.topic ? { topicIds: this.flags.topic } : {}),
        shouldStop: () => stop,
        onProgress: (p) => {
          if (this.flags.json) return;
          const now = Date.now();
          if (now - last < (interactive ? 200 : 5000) && p.done < p.total) return;
          last = now;
          const pct = p.total > 0 ? Math.floor((p.done / p.total) * 100) : 100;
          const line = `embedding ${p.phase.padEnd(5)} ${p.done}/${p.total} (${pct}%)  ${p.rate.toFixed(1)}/s  ETA ${duration(p.eta)}`;
          process.stderr.write(interactive ? `\r${line}\u001b[K` : `${line}\n`);
        },
      });
      if (interactive) process.stderr.write('\n');
      return { ...report, chunk_vectors: chunks };
    } finally {
      process.off('SIGINT', onSignal);
      got.release();
    }
  }

  protected renderHuman(r: { embedder: string; embedded: number; seconds: number; chunk_vectors: boolean; stopped?: boolean; topics: Record<string, { chunks: number; vectors: number }> }): string {
    const lines = [`${r.stopped ? 'Stopped' : 'Done'}: ${r.embedded} texts embedded with ${r.embedder} in ${r.seconds} s${r.chunk_vectors ? '' : ' (topic notes only: chunk vectors are off for this model; `index embedder set NAME --chunks on` turns them on)'}`];
    for (const [id, t] of Object.entries(r.topics)) lines.push(`  ${id}: ${t.vectors}/${t.chunks} chunks with vectors`);
    return lines.join('\n');
  }
}
