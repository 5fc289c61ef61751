import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { Config } from '../config.js';

const compiled = new WeakMap<Config, ReturnType<typeof proxyAddr.compile>>();

/**
 * The address of the client behind a request: the connection's peer, or — when that peer is one of
 * `TRUSTED_PROXIES` (a balancer such as the shipped nginx) — the address it reports in `X-Forwarded-For`,
 * walking the header from the right past every trusted hop (proxy-addr, the rule Express uses). Anonymous
 * sign-ins are limited per this address, so behind a balancer it must be the client's, not the balancer's;
 * an untrusted peer's header is ignored, so a client cannot choose its own address.
 */
export function clientAddress(config: Config, req: IncomingMessage): string {
  if (config.TRUSTED_PROXIES.length === 0) return req.socket?.remoteAddress ?? 'unknown';
  return proxyAddr(req, trustOf(config)) || 'unknown';
}

/** Whether the connection's peer is one of `TRUSTED_PROXIES`: the request came through the balancer. */
export function fromTrustedProxy(config: Config, req: IncomingMessage): boolean {
  const peer = req.socket?.remoteAddress;
  return config.TRUSTED_PROXIES.length > 0 && peer !== undefined && trustOf(config)(peer, 0);
}

function trustOf(config: Config): ReturnType<typeof proxyAddr.compile> {
  let trust = compiled.get(config);
  if (!trust) {
    trust = proxyAddr.compile(config.TRUSTED_PROXIES);
    compiled.set(config, trust);
  }
  return trust;
}
