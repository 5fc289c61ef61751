import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import getPort from 'get-port';

const run = promisify(execFile);

/** The configuration the repository ships (README.md, "Scale-out"). */
export const nginxTemplatePath = fileURLToPath(
  new URL('../../deploy/nginx/connectivity-gateway.conf', import.meta.url),
);

/** One line of the test server's access log: what nginx answered and which instance(s) it asked. */
export interface NginxAccess {
  method: string;
  /** The request's path, without its query string. */
  path: string;
  status: number;
  /** `$upstream_addr`: `127.0.0.1:<port>`, several separated by `, ` when nginx tried the next one; `-` if none. */
  upstream: string;
}

/** A running nginx of the tests: its URL, its access log, and `stop()`. */
export interface TestNginx {
  url: string;
  port: number;
  /** The `conf.d` file generated from the template (for a failure message). */
  config: string;
  /** Every request nginx has logged so far, oldest first (logged when its response ends). */
  accessLog(): NginxAccess[];
  /** What nginx wrote to its error log so far. */
  errorLog(): string;
  /** Stops nginx (fast shutdown: open connections are cut) and removes its folder. Idempotent. */
  stop(): Promise<void>;
}

/** Debian's nginx binary, or an error saying how to get it. */
function nginxBinary(): string {
  const binary = ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((path) => existsSync(path));
  if (!binary) {
    throw new Error('No nginx for the tests: install Debian’s nginx package (.ci/run does).');
  }
  return binary;
}

/**
 * The template with its upstream's `server` lines replaced by one per port on 127.0.0.1 (keeping the
 * template's parameters, `max_fails=… fail_timeout=…`) and its `listen` line by `127.0.0.1:<listenPort>`.
 *
 * @throws Error when the template no longer has exactly one `listen 80;` and at least one active `server`
 *   line in `upstream connectivity_gateway`: the test must then follow the template's new shape.
 */
export function configFromTemplate(template: string, upstreamPorts: number[], listenPort: number): string {
  const upstream = /upstream connectivity_gateway \{[\s\S]*?\n\}/.exec(template);
  if (!upstream) throw new Error('the nginx template has no `upstream connectivity_gateway { … }` block');
  const serverLine = /^( *)server +[^\s;]+( [^;\n]*)?;$/gm;
  const servers = [...upstream[0].matchAll(serverLine)];
  const first = servers[0];
  if (!first) throw new Error('the nginx template’s upstream names no server');
  const indent = first[1] ?? '';
  const parameters = first[2] ?? '';
  const generated = upstreamPorts.map((port) => `${indent}server 127.0.0.1:${port}${parameters};`).join('\n');
  let block = upstream[0].replace(first[0], generated);
  for (const other of servers.slice(1)) block = block.replace(`${other[0]}\n`, '');
  const withUpstream = template.replace(upstream[0], block);
  const listens = withUpstream.match(/^ *listen 80;$/gm) ?? [];
  if (listens.length !== 1) throw new Error('the nginx template must have exactly one `listen 80;` line');
  return withUpstream.replace(/^( *)listen 80;$/m, `$1listen 127.0.0.1:${listenPort};`);
}

/**
 * Starts Debian's nginx as a throwaway server for one test file, with the repository's configuration
 * (`deploy/nginx/connectivity-gateway.conf`) in front of `upstreamPorts` on 127.0.0.1: a temporary prefix
 * folder holding the generated configuration, pid file, logs and temp paths; `daemon off`; one worker
 * process (`user root` when the tests run as root, so that it may write the temp folder); listening on a
 * free port of 127.0.0.1. The configuration is checked with `nginx -t` first. Resolves once nginx accepts
 * connections.
 *
 * @throws Error with nginx's own message when the configuration is invalid or nginx does not start
 *   within 10 s; when no nginx is installed.
 */
export async function startTestNginx(options: {
  upstreamPorts: number[];
  template?: string;
}): Promise<TestNginx> {
  const binary = nginxBinary();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-nginx-'));
  const port = await getPort({ host: '127.0.0.1' });
  const template = options.template ?? readFileSync(nginxTemplatePath, 'utf8');
  const config = configFromTemplate(template, options.upstreamPorts, port);
  const confFile = join(dir, 'connectivity-gateway.conf');
  writeFileSync(confFile, config);
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
  const accessLogFile = join(dir, 'access.log');
  const errorLogFile = join(dir, 'error.log');
  writeFileSync(accessLogFile, '');
  writeFileSync(errorLogFile, '');
  const main = [
    process.getuid?.() === 0 ? 'user root root;' : '',
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${errorLogFile} warn;`,
    'events { worker_connections 4096; }',
    'http {',
    // Tab-separated, so the path never collides with the separator.
    "  log_format test '$request_method\\t$uri\\t$status\\t$upstream_addr';",
    `  access_log ${accessLogFile} test;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (temp) => `  ${temp}_temp_path ${join(dir, temp)};`,
    ),
    `  include ${confFile};`,
    '}',
  ].join('\n');
  const mainFile = join(dir, 'nginx.conf');
  writeFileSync(mainFile, `${main}\n`);
  const args = ['-p', `${dir}/`, '-c', mainFile, '-e', errorLogFile];
  try {
    await run(binary, [...args, '-t', '-q']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`nginx -t refused the configuration:\n${stderr}\n--- conf.d file ---\n${config}`);
  }

  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errorLog = () => `${readFileSync(errorLogFile, 'utf8')}${stderr}`;
  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGTERM is nginx's fast shutdown: the master ends its worker, then itself. (SIGKILL of the master
        // would leave the worker running.)
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      const log = errorLog();
      await stop();
      throw new Error(`nginx did not start:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    config,
    accessLog: () =>
      readFileSync(accessLogFile, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const [method = '', path = '', status = '0', upstream = ''] = line.split('\t');
          return { method, path, status: Number(status), upstream };
        }),
    errorLog,
    stop,
  };
}

/** Whether a TCP connection to 127.0.0.1:`port` is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
