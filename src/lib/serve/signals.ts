/** Resolves on the first SIGINT or SIGTERM (for foreground commands that run until stopped). */
export function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** An event as one JSON-safe object (errors keep their message and code). */
export function eventJson(e: { type: string; error?: unknown }): unknown {
  if (e.type !== 'error') return e;
  const err = e.error as (Error & { code?: unknown }) | undefined;
  return { type: 'error', message: err instanceof Error ? err.message : String(err), ...(err && typeof err === 'object' && 'code' in err ? { code: err.code } : {}) };
}
