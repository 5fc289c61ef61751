import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a {@link sellerProxy} treats each `POST /productOrder` it passes on. */
export interface OrderPostHandling {
  /** How long the proxy holds the POST before the seller sees it (ms); it is passed on even when the caller gave up. */
  holdMs?: number;
  /** The body the caller gets instead of the seller's answer (the seller has acted on the POST all the same). */
  answerWith?: (status: number, body: string) => string;
}

/**
 * A proxy on 127.0.0.1 in front of a simulated Sonata seller: every call is passed on and answered as the
 * seller answers, except `POST /productOrder`, which `handling` may hold or whose answer it may replace.
 */
export async function sellerProxy(
  target: string,
  handling: OrderPostHandling,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const orderPost = req.method === 'POST' && req.url?.split('?')[0]?.endsWith('/productOrder');
    if (orderPost && handling.holdMs) await new Promise((resolve) => setTimeout(resolve, handling.holdMs));
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([name]) => !['host', 'connection', 'content-length'].includes(name),
      ),
    ) as Record<string, string>;
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
    const text = await answer.text();
    if (res.destroyed) return;
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    res.end(orderPost && handling.answerWith ? handling.answerWith(answer.status, text) : text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
