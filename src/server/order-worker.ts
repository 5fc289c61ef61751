import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { SpanKind } from '@opentelemetry/api';
import type { Services } from '../context.js';
import type { SourceType } from '../db/rows.js';
import { SonataClient } from '../gathering/sources/mef-sonata/client.js';
import { SonataHub } from '../gathering/sources/mef-sonata/hub.js';
import { createHttpOrderStep } from '../ordering/http-step.js';
import { SonataOrdering } from '../ordering/mef-sonata/ordering-client.js';
import { OrderListeners } from '../ordering/order-listeners.js';
import { createSonataOrderStep } from '../ordering/sonata-step.js';
import { OrderWorker, type SupplierOrderStepper } from '../ordering/worker.js';
import { currentTraceContext, inStoredTrace } from '../telemetry/trace-context.js';
import type { SonataWiring } from './sonata-callbacks.js';

/**
 * The order worker of an instance, not started (issue "Orders, part 1"): it places and follows supplier
 * orders at their Sonata sellers through the `mef-sonata` source's client — the same token cache and
 * resilience policy (bulkhead, retries, breaker) its gathering uses, so one seller sees one buyer. Its
 * lease, pace and width are the gathering worker's (`GATHERING_LEASE_SECONDS`, `GATHERING_IDLE_POLL_MS`,
 * `GATHERING_CONCURRENCY`); a placed order wakes it (`services.events.onWritten`), and so does a seller's
 * order notification at this process's callback route. With `PUBLIC_BASE_URL` it registers each source's
 * order listener (`OrderListeners`). Supplier orders of `http` sources are stepped by `createHttpOrderStep`
 * (docs/supplier-contract.md, "Ordering"), with policies of its own.
 *
 * @returns the worker; `start()` it with the gathering worker, `stop()` it before the store closes.
 */
export function createOrderWorker(services: Services, sonata: SonataWiring): OrderWorker {
  const { config } = services;
  const now = () => services.clock.now();
  const client = new SonataClient(sonata.source.policies, sonata.source.tokens, now);
  const ordering = new SonataOrdering(client);
  const codes = new Map<string, string>();
  const inbox = config.PUBLIC_BASE_URL ? sonata.inbox : null;
  const sonataStep = createSonataOrderStep({
    ordering,
    now,
    requote: {
      client,
      now,
      notifications: inbox ? { inbox, hub: new SonataHub(client, inbox, sonata.registrations) } : null,
    },
    listeners: new OrderListeners(
      ordering,
      client,
      config.PUBLIC_BASE_URL ? sonata.inbox : null,
      sonata.registrations,
    ),
    instanceCode: async (instanceId) => {
      let code = codes.get(instanceId);
      if (code === undefined) {
        code = (await services.db.findInstance(instanceId))?.code ?? instanceId;
        codes.set(instanceId, code);
      }
      return code;
    },
  });
  // Each supplier order is stepped by its source's protocol.
  const steps = new Map<SourceType, SupplierOrderStepper>([
    ['mef-sonata', sonataStep],
    ['http', createHttpOrderStep({ now })],
  ]);
  // The context of each step's span, until the step is recorded: the record and the `order:changed` event
  // it writes belong to the step's trace (issue 37). Empty while tracing is off.
  const stepContexts = new Map<string, string>();
  const { db } = services;
  const worker = new OrderWorker({
    db: {
      claimSupplierOrders: (...args) => db.claimSupplierOrders(...args),
      markSupplierOrderPosting: (...args) => db.markSupplierOrderPosting(...args),
      markSupplierOrderCancelPosting: (...args) => db.markSupplierOrderCancelPosting(...args),
      recordSupplierOrderProgress: async (progress) => {
        const stepContext = stepContexts.get(progress.supplierOrderId);
        if (stepContext === undefined) return db.recordSupplierOrderProgress(progress);
        const recorded = await inStoredTrace(
          stepContext,
          'supplier order record',
          { 'gateway.supplier_order.id': progress.supplierOrderId },
          () => db.recordSupplierOrderProgress(progress),
          SpanKind.INTERNAL,
        );
        // Kept until the record is written: one the store refused (an outage) is tried again in the trace.
        stepContexts.delete(progress.supplierOrderId);
        return recorded;
      },
      ping: () => db.ping(),
    },
    clock: services.clock,
    logger: services.logger.child({ component: 'ordering' }),
    owner: `${hostname()}:${process.pid}:${randomUUID()}`,
    // A step's span continues the trace of the request that placed the order (issue 37); its record is a
    // child span of it (`supplier order record`, above).
    step: (claimed, signal, context) =>
      inStoredTrace(
        claimed.supplierOrder.traceContext,
        'supplier order step',
        {
          'gateway.supplier_order.id': claimed.supplierOrder.id,
          'gateway.order.id': claimed.order.id,
          'gateway.source.key': claimed.source.key,
        },
        () => {
          const stepContext = currentTraceContext();
          if (stepContext !== null) stepContexts.set(claimed.supplierOrder.id, stepContext);
          return (steps.get(claimed.source.type) ?? sonataStep)(claimed, signal, context);
        },
      ),
    leaseMs: config.GATHERING_LEASE_SECONDS * 1000,
    concurrency: config.GATHERING_CONCURRENCY,
    // A quarter of the slots claimed ahead: enough to refill the slots that free during one claim's round
    // trips at a busy seller (BENCHMARKS.md, "Orders at Sonata sellers"), few against the lease.
    claimAhead: Math.ceil(config.GATHERING_CONCURRENCY / 4),
    idlePollMs: config.GATHERING_IDLE_POLL_MS,
    onChanges: () => services.events.written(),
  });
  services.events.onWritten(() => worker.wake());
  sonata.onOrderNotification(() => worker.wake());
  return worker;
}
