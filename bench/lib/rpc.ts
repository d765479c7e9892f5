/**
 * A hand-written JSON-RPC client over an MCP server's stdio (newline-delimited frames), so no
 * client library's cost is counted in a round trip. Any server command: our `mcp` or a peer's.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

export class StdioRpc {
  readonly child: ChildProcessWithoutNullStreams;
  private buf = '';
  private id = 0;
  private waiting = new Map<number, (m: any) => void>();
  stderr = '';

  constructor(command: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
    this.child = spawn(command, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (d) => (this.stderr += d));
    this.child.stdout.on('data', (d: Buffer) => {
      this.buf += d.toString('utf8');
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        // A server may log a stray non-JSON line on stdout; only frames with an id are answers.
        let msg: any;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        const w = this.waiting.get(msg?.id);
        if (w) {
          this.waiting.delete(msg.id);
          w(msg);
        }
      }
    });
  }

  request(method: string, params: unknown = {}, timeoutMs = 600_000): Promise<any> {
    const id = ++this.id;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method}: ${this.stderr.slice(-2000)}`)), timeoutMs);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(`${method}: ${m.error.message}`));
        else resolve(m.result);
      });
      this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  async initialize(): Promise<void> {
    await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  }

  /** Closes stdin (the stdio transport's "stop") and waits for the exit; SIGKILL after 20 s. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const done = new Promise<void>((r) => this.child.once('close', () => r()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await done;
    clearTimeout(timer);
  }
}
