import { Flags } from '@oclif/core';

import { assignDefined, BaseCommand, inputFlag, wholeNumberFlag } from '../cli/base.js';
import { TkomaError } from '../lib/errors.js';
import { getReference, type GetResult } from '../lib/topics/read.js';

export default class Get extends BaseCommand<typeof Get> {
  static summary = 'Get a reference file (or a line range of it) by note id, or by topic and path.';
  static description = 'Note ids are what search hits carry as `id`: <topic-id>/<path>, optionally #L<start>-L<end>. The topic can be named as `search` accepts it (`--topic dioxus-ui`).';
  static examples = [
    '<%= config.bin %> get --topic topic-dioxus-ui --path docs/guide/index.md',
    '<%= config.bin %> get --id topic-dioxus-ui/src/lib.rs#L10-L40 --json',
    '<%= config.bin %> get --topic topic-dioxus-ui --path README.md --start-line 1 --end-line 20 --max-chars 2000',
  ];
  static flags = {
    ...inputFlag,
    id: Flags.string({ description: 'Note id: <topic-id>/<path>[#L<start>-L<end>]' }),
    topic: Flags.string({ description: 'Topic id.' }),
    path: Flags.string({ description: 'File path inside the topic (default topic.md).' }),
    'start-line': wholeNumberFlag({ description: 'First line (1-based).', min: 1 }),
    'end-line': wholeNumberFlag({ description: 'Last line (inclusive).', min: 1 }),
    'max-chars': wholeNumberFlag({ description: 'Cut the content after this many characters.', min: 1 }),
  };

  protected async execute(): Promise<GetResult> {
    const f = this.flags;
    const raw = assignDefined(this.readInput(f.input), {
      id: f.id ?? undefined,
      topic: f.topic,
      path: f.path,
      start_line: f['start-line'],
      end_line: f['end-line'],
      max_chars: f['max-chars'],
    });
    const num = (k: string): number | undefined => {
      const v = raw[k];
      if (v === undefined || v === null) return undefined;
      if (!Number.isInteger(v) || (v as number) < 1) throw new TkomaError('INVALID_INPUT', `\`${k}\` must be a whole number ≥ 1`, { field: k });
      return v as number;
    };
    const str = (k: string): string | undefined => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
    const topic = str('topic') ?? str('topic_id');
    const req = { id: str('id') ?? str('note_id'), topic, path: str('path'), start_line: num('start_line'), end_line: num('end_line'), max_chars: num('max_chars') };
    if (req.start_line && req.end_line && req.end_line < req.start_line) throw new TkomaError('INVALID_INPUT', 'end_line is before start_line');
    const root = this.root();
    // The same topic names `search` accepts: `--topic widgetron`, `--id widgetron/README.md`.
    if (req.topic) req.topic = await this.topicId(root, req.topic);
    else if (req.id && /^[^/#]+\//.test(req.id)) {
      const at = req.id.indexOf('/');
      req.id = `${await this.topicId(root, req.id.slice(0, at))}${req.id.slice(at)}`;
    }
    return getReference(root, req);
  }

  protected renderHuman(r: GetResult): string {
    return r.content;
  }
}
