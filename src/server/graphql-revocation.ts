import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context, Services } from '../context.js';

/** A stream that can be ended from outside: `end()` finishes it as if its source had. */
interface EndableStream<T> {
  stream: AsyncIterableIterator<T>;
  end(): void;
}

const done = <T>(): IteratorResult<T> => ({ done: true, value: undefined });

/**
 * `source` as a stream that {@link EndableStream.end} finishes: a read waiting for the next value resolves
 * as done at once, every later read is done, and the source is returned (so its listener is removed).
 * `onFinish` runs once when the stream is finished by any means (the source ending, the consumer
 * returning, or `end()`).
 */
function endable<T>(source: AsyncIterable<T>, onFinish: () => void): EndableStream<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  let wake: () => void = () => {};
  const ended = new Promise<IteratorResult<T>>((resolve) => {
    wake = () => resolve(done<T>());
  });
  const finish = () => {
    if (finished) return false;
    finished = true;
    wake();
    onFinish();
    return true;
  };
  const stream: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => stream,
    next: async () => {
      if (finished) return done<T>();
      const next = iterator.next();
      // A read still pending when the stream is ended settles later, unread.
      next.catch(() => undefined);
      const result = await Promise.race([next, ended]);
      if (result.done) finish();
      return result;
    },
    return: async (value?: unknown) => {
      finish();
      await iterator.return?.(value);
      return done<T>();
    },
    throw: async (error?: unknown) => {
      finish();
      if (iterator.throw) return iterator.throw(error);
      throw error;
    },
  };
  return {
    stream,
    end: () => {
      if (finish()) void iterator.return?.().catch(() => undefined);
    },
  };
}

/**
 * Ends the GraphQL subscriptions served through Yoga — GraphQL over SSE (`POST /graphql` with `Accept:
 * text/event-stream`) — whose auth token is revoked or whose application is disabled: each stream of an
 * authenticated caller is registered with `services.revocations` for its life, and ended (Yoga then sends
 * its `complete` event and ends the response) when a revocation covers it. Subscriptions over graphql-ws
 * end with their socket instead (`graphql-ws.ts`).
 */
export function endRevokedStreams(services: Services): Plugin {
  const sessions = services.revocations.sessions<EndableStream<ExecutionResult>>((stream) => stream.end());
  return {
    onSubscribe({ args }) {
      const { viewer } = args.contextValue as Partial<Context>;
      if (!viewer) return;
      const session = { tokenId: viewer.tokenId, applicationId: viewer.applicationId };
      return {
        onSubscribeResult({ result, setResult }) {
          if (!(Symbol.asyncIterator in result)) return;
          const wrapped: EndableStream<ExecutionResult> = endable(result, () => sessions.delete(wrapped));
          sessions.add(wrapped, session);
          setResult(wrapped.stream);
        },
      };
    },
  };
}
