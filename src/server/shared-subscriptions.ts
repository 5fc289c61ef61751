import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Context, SubscriptionPhase } from '../context.js';

/** Runs one event of a subscription document (Yoga's enveloped `execute`, so errors are masked alike). */
export type EventExecutor = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;

/** Where one payload stands in its subject's progress; a subscriber never gets a payload not newer. */
export interface PayloadProgress {
  /** What the payload is about, e.g. a request id. */
  subject: string;
  /** Grows with every change of the subject. */
  rank: number;
}

/** One result for the subscribers of a group, with the progress of the payload it was executed from. */
interface Delivery {
  result: ExecutionResult;
  progress: PayloadProgress | null;
  /** `result` as JSON, serialised once for all subscribers on first use. */
  json(): string;
}

/** A delivery of `result`, serialising it at most once. */
function delivery(result: ExecutionResult, progress: PayloadProgress | null): Delivery {
  let json: string | null = null;
  return {
    result,
    progress,
    json: () => {
      json ??= JSON.stringify(result);
      return json;
    },
  };
}

/**
 * Writes one serialised result straight to a subscriber's connection (a graphql-ws `next` message),
 * instead of handing the result object to the transport to serialise per subscriber.
 */
export interface ResultSink {
  write(resultJson: string): void;
}

/**
 * Subscribers of one document, variables and visibility, sharing one event stream and its executions;
 * listed in `groups` under `key` while it has subscribers.
 */
class Group {
  readonly subscribers = new Set<Subscriber>();
  source: AsyncIterator<unknown> | null = null;

  constructor(
    readonly key: string,
    private readonly groups: Map<string, Group>,
  ) {}

  /** Takes the group out of `groups`, unless a newer group of its key has taken its place. */
  unlist(): void {
    if (this.groups.get(this.key) === this) this.groups.delete(this.key);
  }

  /** `subscriber` is gone; the last one to leave ends the group and its event stream. */
  leave(subscriber: Subscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size > 0) return;
    this.unlist();
    void this.source?.return?.();
  }
}

/**
 * One subscriber: a queue that graphql-ws pulls from, and what it has been sent per subject. With
 * thousands of subscribers on a process, it holds no closures and creates its queue and its map of sent
 * ranks only when needed.
 */
class Subscriber implements AsyncIterableIterator<ExecutionResult> {
  /** Live deliveries wait here until the subscriber's own snapshot has been sent. */
  private held: Delivery[] | null = [];
  /** Results not yet read (only without a sink). */
  private queue: ExecutionResult[] | null = null;
  /** The rank sent per subject, for the subjects of the snapshot (see {@link send}). */
  private sent: Map<string, number> | null = null;
  /** A read waiting for the next result (nothing is queued while one waits). */
  private waiting: {
    resolve: (result: IteratorResult<ExecutionResult>) => void;
    reject: (error: unknown) => void;
  } | null = null;
  private failure: { error: unknown } | null = null;
  /** No more results will be queued (the queue may still hold some). */
  closed = false;

  constructor(
    private readonly group: Group,
    private readonly sink: ResultSink | null,
  ) {}

  /** A live delivery: held until the snapshot is sent, then sent as by {@link send}. */
  deliver(delivery: Delivery): void {
    if (this.held) this.held.push(delivery);
    else this.send(delivery);
  }

  /**
   * Sends `delivery` unless the subscriber already has its subject at this rank or later. Ranks are kept
   * only for the subjects of the subscriber's snapshot: the group's live stream is in order already, so
   * only a live event racing the snapshot can be stale — and the map stays as small as the snapshot.
   */
  send(delivery: Delivery, fromSnapshot = false): void {
    if (this.closed) return;
    const { progress } = delivery;
    if (progress && (fromSnapshot || this.sent?.has(progress.subject))) {
      this.sent ??= new Map();
      if ((this.sent.get(progress.subject) ?? -1) >= progress.rank) return;
      this.sent.set(progress.subject, progress.rank);
    }
    if (this.sink) this.sink.write(delivery.json());
    else if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve({ done: false, value: delivery.result });
    } else {
      this.queue ??= [];
      this.queue.push(delivery.result);
    }
  }

  /** The snapshot is sent: from now on live deliveries go out, starting with those held meanwhile. */
  goLive(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const delivery of held) this.send(delivery);
  }

  /** Ends the stream once the queued results are read; with `error`, the last read rejects with it. */
  close(error?: { error: unknown }): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = error ?? null;
    this.group.leave(this);
    if (this.waiting) {
      const { resolve, reject } = this.waiting;
      this.waiting = null;
      // Nothing is queued while a read waits: that read ends now, or fails with the error.
      this.next().then(resolve, reject);
    }
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const value = this.queue?.shift();
    if (value !== undefined) return Promise.resolve({ done: false, value });
    if (this.failure) {
      const { error } = this.failure;
      this.failure = null;
      return Promise.reject(error);
    }
    if (this.closed) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The client is gone (graphql-ws calls this on `complete` or a closed socket). */
  return(): Promise<IteratorResult<ExecutionResult>> {
    this.queue = null;
    this.failure = null;
    this.close();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionResult> {
    return this;
  }
}

/**
 * The context of one phase: a shallow copy, so every execution gets fresh per-operation loaders. Assigned,
 * not spread: V8 gives an object spread with an added key a hidden class of its own.
 */
function phaseContext(context: Context, phase: SubscriptionPhase): Context {
  return Object.assign({}, context, { subscriptionPhase: phase });
}

/**
 * Runs one event of `args`'s subscription into a delivery. Built apart from `subscribe`, so the closure
 * keeps only these three and not everything `subscribe` had in scope.
 */
function eventRunner(
  args: ExecutionArgs,
  execute: EventExecutor,
  progressOf: (payload: unknown) => PayloadProgress | null,
): (payload: unknown) => Promise<Delivery> {
  const context = args.contextValue as Context;
  return async (payload) =>
    delivery(
      await execute({ ...args, rootValue: payload, contextValue: { ...context } }),
      progressOf(payload),
    );
}

/** Sends `subscriber` the states of its snapshot, then lets its live deliveries go out. */
async function sendSnapshot(
  subscriber: Subscriber,
  snapshot: AsyncIterable<unknown>,
  run: (payload: unknown) => Promise<Delivery>,
): Promise<void> {
  try {
    for await (const payload of snapshot) {
      if (subscriber.closed) break;
      subscriber.send(await run(payload), true);
    }
    subscriber.goLive();
  } catch (error) {
    subscriber.close({ error });
  }
}

/**
 * Shares the execution of identical graphql-ws subscriptions.
 *
 * Stock graphql-ws executes a subscription's selection set once per subscriber per event; with thousands
 * of dashboards on one instance that work, not the socket writes, bounds the event rate. Here subscribers
 * with the same document, operation, variables and visibility (instance and roles, see `shareKey`) form a
 * group: the group subscribes to the event source once (`subscriptionPhase: 'live'`) and executes each
 * event once, and every subscriber gets that same result.
 *
 * What differs per subscriber is its snapshot — the current states a subscription sends first. Each new
 * subscriber reads it on its own (`subscriptionPhase: 'snapshot'`) after joining the group; live results
 * arriving meanwhile are held, then sent unless `progressOf` says the subscriber already has that state
 * or a later one, so progress never goes backwards for any subscriber.
 *
 * Errors are what stock execution gives: an event stream that cannot start answers the subscriber with
 * its error result; a failing stream ends every subscriber of the group with that error.
 */
export class SharedSubscriptions {
  private readonly groups = new Map<string, Group>();

  constructor(private readonly progressOf: (payload: unknown) => PayloadProgress | null) {}

  /** Groups alive right now (each one event-source subscription). */
  get groupCount(): number {
    return this.groups.size;
  }

  /** Subscribers across all groups right now. */
  get subscriberCount(): number {
    let count = 0;
    for (const group of this.groups.values()) count += group.subscribers.size;
    return count;
  }

  /**
   * Subscribes with `args` (its `contextValue` a {@link Context}), sharing the event stream and each
   * event's execution with the other subscribers of `key`. With a `sink`, results are written to it
   * serialised (once per event for the whole group) and the returned iterator only ends — with the
   * subscription, or with the stream's error; without one, the iterator yields the results.
   *
   * @returns the subscriber's results, or the error result when the event stream cannot start.
   */
  async subscribe(
    key: string,
    args: ExecutionArgs,
    execute: EventExecutor,
    sink?: ResultSink,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const context = args.contextValue as Context;
    const run = eventRunner(args, execute, this.progressOf);
    let group = this.groups.get(key);
    const isNew = group === undefined;
    if (!group) {
      group = new Group(key, this.groups);
      this.groups.set(key, group);
    }
    const subscriber = new Subscriber(group, sink ?? null);
    group.subscribers.add(subscriber);
    if (isNew) {
      const stream = await createSourceEventStream({ ...args, contextValue: phaseContext(context, 'live') });
      if (!(Symbol.asyncIterator in stream)) {
        // Nothing to share: every subscriber that joined meanwhile gets the same error result.
        group.unlist();
        for (const member of [...group.subscribers]) {
          if (member === subscriber) continue;
          member.goLive();
          member.send(delivery(stream, null));
          member.close();
        }
        void subscriber.return();
        return stream;
      }
      group.source = stream[Symbol.asyncIterator]();
      if (group.subscribers.size === 0) void group.source.return?.();
      else void pump(group, group.source, run);
    }
    const snapshot = await createSourceEventStream({
      ...args,
      contextValue: phaseContext(context, 'snapshot'),
    });
    if (!(Symbol.asyncIterator in snapshot)) {
      void subscriber.return();
      return snapshot;
    }
    void sendSnapshot(subscriber, snapshot, run);
    return subscriber;
  }
}

/** Executes each event of `group`'s stream once and delivers the result to every subscriber. */
async function pump(
  group: Group,
  source: AsyncIterator<unknown>,
  run: (payload: unknown) => Promise<Delivery>,
): Promise<void> {
  try {
    for (;;) {
      const next = await source.next();
      if (next.done) break;
      const delivery = await run(next.value);
      for (const subscriber of group.subscribers) subscriber.deliver(delivery);
    }
    for (const subscriber of [...group.subscribers]) subscriber.close();
  } catch (error) {
    for (const subscriber of [...group.subscribers]) subscriber.close({ error });
  } finally {
    group.unlist();
  }
}
