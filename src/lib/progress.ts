/**
 * Long operations report steps through this interface so src/lib stays free of rendering:
 * commands pass a terminal renderer for people (cli/progress.ts), and `silentProgress` under --json.
 */
export interface Progress {
  task<T>(title: string, fn: (update: (message: string) => void) => Promise<T>): Promise<T>;
  warn(message: string): void;
}

export const silentProgress: Progress = {
  task: (_title, fn) => fn(() => undefined),
  warn: () => undefined,
};
