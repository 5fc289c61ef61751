import type { ServerResponse } from 'node:http';

/**
 * The HTTP requests a server is answering right now, for a graceful shutdown (issue 17): how many there
 * are, a promise that resolves when none is left, and a way to end the event streams among them — GraphQL
 * over SSE and the like, which would otherwise never end by themselves.
 */
export class InFlightRequests {
  private readonly open = new Set<ServerResponse>();
  private waiters: (() => void)[] = [];

  /** Requests whose responses have not finished or closed yet. */
  get count(): number {
    return this.open.size;
  }

  /**
   * Counts `res` from now on. Call it as the request arrives.
   *
   * @returns the function that stops counting it, to call when the response has ended (its `close` event:
   *   after it finished, or when its connection closed first); calling it again does nothing.
   */
  track(res: ServerResponse): () => void {
    this.open.add(res);
    return () => {
      if (!this.open.delete(res)) return;
      if (this.open.size === 0) for (const resolve of this.waiters.splice(0)) resolve();
    };
  }

  /**
   * Ends every open response that is an event stream (`Content-Type: text/event-stream`): the stream
   * simply ends, as the SSE spec lets a server do, and an EventSource reconnects — to another instance
   * behind the balancer. Plain requests are left to finish.
   *
   * @returns how many streams were ended.
   */
  endEventStreams(): number {
    let ended = 0;
    for (const res of this.open) {
      const type = res.getHeader('content-type');
      if (typeof type === 'string' && type.startsWith('text/event-stream')) {
        res.end();
        ended += 1;
      }
    }
    return ended;
  }

  /**
   * Resolves `true` once no request is in flight, or `false` when `timeoutMs` passed first.
   */
  async drained(timeoutMs: number): Promise<boolean> {
    if (this.open.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.waiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([idle, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
