import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A call the proxy passed on: its method, path and the W3C `traceparent` it arrived with (or null). */
export interface ProxiedCall {
  method: string;
  path: string;
  traceparent: string | null;
}

/** A recording reverse proxy in front of a supplier simulator. */
export interface RecordingProxy {
  /** `http://127.0.0.1:<port>`: use it in place of the simulator's URL. */
  url: string;
  calls(): ProxiedCall[];
  close(): Promise<void>;
}

/**
 * Starts a reverse proxy on 127.0.0.1 that records each call's `traceparent` header — what the supplier
 * received — and passes the call on to `target` (the simulator) unchanged, answering with its answer.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const calls: ProxiedCall[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const traceparent = request.headers.traceparent;
    calls.push({
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      traceparent: typeof traceparent === 'string' ? traceparent : null,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers[name] = value;
    }
    const body = Buffer.concat(chunks);
    const answer = await fetch(`${target}${request.url ?? '/'}`, {
      method: request.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const answered = Buffer.from(await answer.arrayBuffer());
    response.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/octet-stream',
    });
    response.end(answered);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => [...calls],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
