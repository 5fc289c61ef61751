import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a test Redis that can hold back what Redis sends on the connections
 * that subscribed (sent a `SUBSCRIBE`), as a slow network would: the process behind it then hears published
 * events late, while its other connection's replies come at once.
 */
export interface RedisDelayProxy {
  /** The proxy's `redis://` URL, for the process under test. */
  url: string;
  /** From now on, keeps what Redis sends to subscriber connections. */
  hold(): void;
  /** Sends on what was kept, in order, and stops keeping. */
  release(): void;
  /** Bytes kept right now. */
  heldBytes(): number;
  /** Closes the proxy and every connection through it. */
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket;
  subscriber: boolean;
  held: Buffer[];
}

/** Starts a {@link RedisDelayProxy} to the Redis at `redisUrl`, on a free port. */
export async function startRedisDelayProxy(redisUrl: string): Promise<RedisDelayProxy> {
  const target = new URL(redisUrl);
  const links = new Set<Link>();
  let holding = false;
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 6379) });
    const link: Link = { client, upstream, subscriber: false, held: [] };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      // RESP sends a command's name as a bulk string: `$9\r\nsubscribe\r\n`, in any case.
      if (/\r\nsubscribe\r\n/i.test(chunk.toString('latin1'))) link.subscriber = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (holding && link.subscriber) link.held.push(chunk);
      else client.write(chunk);
    });
    const end = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const link of links) {
        for (const chunk of link.held.splice(0)) link.client.write(chunk);
      }
    },
    heldBytes: () => [...links].reduce((sum, link) => sum + link.held.reduce((n, b) => n + b.length, 0), 0),
    close: async () => {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
