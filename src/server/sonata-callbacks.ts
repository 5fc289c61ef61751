import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import {
  createMefSonataSource,
  handleSonataNotification,
  type MefSonataSource,
  type SonataHubRegistrations,
  type SonataNotification,
  SonataNotificationInbox,
  storedHubRegistrations,
  storedSonataSettings,
} from '../gathering/sources/mef-sonata/index.js';
import type { SonataOrderEvent } from '../ordering/mef-sonata/order-events.js';
import { handleOrderNotification, isOrderNotificationPath } from '../ordering/order-notifications.js';
import { sendJson } from '../rest/http.js';
import { sendProblem } from '../rest/router.js';
import { sonataCallbackSecret } from './services.js';

/** Where the Sonata hub notifications arrive: `POST /sonata-callbacks/<source id>/<token>/mefApi/…`. */
export const SONATA_CALLBACK_PATH = '/sonata-callbacks';

/** Largest notification body read (64 KiB): an `Event` carries a few ids. */
const MAX_EVENT_BYTES = 64 * 1024;

/** The `mef-sonata` source of an instance and the route its sellers notify. */
export interface SonataWiring {
  /** The adapter, for the gathering worker's adapter map. */
  source: MefSonataSource;
  /** This process's inbox of hub notifications. */
  inbox: SonataNotificationInbox;
  /** Whether a URL path is the callback route's. */
  serves(pathname: string): boolean;
  /** Answers one request to the callback route (see {@link createSonataWiring}). */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** Calls `listener` after a seller's Product Order notification made supplier orders due (the order worker wakes). */
  onOrderNotification(listener: () => void): void;
  /** Where hub listeners are kept (the source's row), for ordering's order listener. */
  registrations: SonataHubRegistrations;
}

/**
 * Wires the `mef-sonata` source into an instance (issue 18):
 *
 * - the adapter reads each source's settings from its row (`storedSonataSettings`) and keeps hub
 *   registrations in the database (`storedHubRegistrations`), shared by every process;
 * - the callback key is the database's `sonata_callback_secret` ({@link sonataCallbackSecret}), so every
 *   instance checks the tokens any worker registered;
 * - callbacks are registered at `<PUBLIC_BASE_URL>/sonata-callbacks/…`; without `PUBLIC_BASE_URL` the
 *   notifications mode polls instead (no seller could reach the gateway);
 * - the route answers `POST /sonata-callbacks/:sourceId/*` with `handleSonataNotification` (401, 404, 400,
 *   204 as the notification documents define), `405` to other methods and `413` past 64 KiB; with Redis,
 *   an accepted event goes to every process's inbox (`RedisSonataNotifications`), so a worker elsewhere
 *   hears it.
 */
export async function createSonataWiring(services: Services): Promise<SonataWiring> {
  const { config, redis } = services;
  // Without PUBLIC_BASE_URL the inbox only checks tokens: no callback URL is ever registered.
  const inbox = new SonataNotificationInbox({
    secret: await sonataCallbackSecret(services.db),
    callbackBaseUrl: `${(config.PUBLIC_BASE_URL ?? 'http://127.0.0.1').replace(/\/+$/, '')}${SONATA_CALLBACK_PATH}`,
    now: () => services.clock.now(),
  });
  redis?.sonataNotifications.listen((notification) => inbox.deliver(notification));
  const deliver = (notification: SonataNotification) => {
    if (inbox.deliver(notification)) redis?.sonataNotifications.publish(notification);
  };
  const registrations = storedHubRegistrations(services.db);
  const source = createMefSonataSource({
    now: () => services.clock.now(),
    settingsOf: storedSonataSettings,
    hubRegistrations: registrations,
    ...(config.PUBLIC_BASE_URL ? { notifications: inbox } : {}),
  });
  const prefix = `${SONATA_CALLBACK_PATH}/`;
  const orderNotified = new EventTarget();
  // A Charge event names only its Charge: every open supplier order of the source is hurried and keeps the
  // id, and its next step reads that Charge by id — the one way a held item's Charge arrives when the
  // seller's `GET /charge` list fails (issue 49).
  const acceptOrderEvent = (sourceId: string, event: SonataOrderEvent) => {
    services.db
      .hurrySupplierOrders(sourceId, event.orderId, services.clock.now(), event.chargeId ?? undefined)
      .then(() => orderNotified.dispatchEvent(new Event('due')))
      .catch((error: unknown) =>
        services.logger.warn({ err: error, sourceId }, 'an order notification could not make its orders due'),
      );
  };
  return {
    source,
    inbox,
    registrations,
    onOrderNotification: (listener) => orderNotified.addEventListener('due', listener),
    serves: (pathname) => pathname.startsWith(prefix),
    async handle(req, res, url) {
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        return sendProblem(res, new AppError('METHOD_NOT_ALLOWED', 'Notifications are POSTed.'));
      }
      const rest = url.pathname.slice(prefix.length);
      const slash = rest.indexOf('/');
      const sourceId = safeDecode(slash < 0 ? rest : rest.slice(0, slash));
      const body = await readText(req);
      if (body === null) {
        return sendProblem(
          res,
          new AppError('PAYLOAD_TOO_LARGE', `The event exceeds ${MAX_EVENT_BYTES} bytes.`),
        );
      }
      const request = { sourceId, path: slash < 0 ? '/' : rest.slice(slash), headers: req.headers, body };
      const answer = isOrderNotificationPath(request.path)
        ? handleOrderNotification(inbox, request, acceptOrderEvent)
        : handleSonataNotification(inbox, request, deliver);
      if (answer.body === null) {
        res.writeHead(answer.status).end();
        return;
      }
      sendJson(res, answer.status, answer.body);
    },
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The body as text, or null past {@link MAX_EVENT_BYTES}. */
async function readText(req: IncomingMessage): Promise<string | null> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_EVENT_BYTES) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_EVENT_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
