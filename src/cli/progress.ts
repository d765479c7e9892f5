/** Progress for people: each step is a listr2 task drawn on stderr (simple renderer off a TTY). */
import { Listr, ListrLogger, ProcessOutput } from 'listr2';

import type { Progress } from '../lib/progress.js';
import { paint } from './render.js';

export function listrProgress(): Progress {
  const output = new ProcessOutput(process.stderr, process.stderr);
  const logger = new ListrLogger({ processOutput: output });
  return {
    async task<T>(title: string, fn: (update: (m: string) => void) => Promise<T>): Promise<T> {
      let value!: T;
      const list = new Listr(
        [
          {
            title,
            task: async (_ctx, task) => {
              value = await fn((m) => {
                task.output = m;
              });
            },
          },
        ],
        {
          exitOnError: true,
          rendererOptions: { logger, collapseErrors: true, showErrorMessage: false },
          fallbackRendererOptions: { logger },
        },
      );
      await list.run();
      return value;
    },
    warn(message: string): void {
      process.stderr.write(`${paint('yellow', 'Warning')}: ${message}\n`);
    },
  };
}
