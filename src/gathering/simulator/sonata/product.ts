import type { ItemProblem } from './errors.js';

/** `@type` (the schema `$id`) of MEF 139 Basic Internet Access, the one product the simulated sellers sell. */
export const BASIC_INTERNET_ACCESS_TYPE = 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all';

/** MEF 139 `InformationRateUnits` in kbps ("1 KBPS is 1000 bits per second", `InformationRate`). */
const KBPS_PER_UNIT: Record<string, number> = {
  BPS: 0.001,
  KBPS: 1,
  MBPS: 1_000,
  GBPS: 1_000_000,
  TBPS: 1e9,
};

/** An MEF 139 `InformationRate` (`{ irValue, irUnits }`) for a rate in kbps, in Mbit/s as the gateway sends it. */
export function informationRate(kbps: number): { irValue: number; irUnits: 'MBPS' } {
  return { irValue: kbps / 1000, irUnits: 'MBPS' };
}

type Json = Record<string, unknown>;

/**
 * The bandwidth a Basic Internet Access configuration asks for, in kbps: download from
 * `ipUniAccessLink.egressBwpEnvelope[0].maxIr` (egress at the UNI, provider → subscriber), upload from
 * `ipUniAccessLink.ingressBwpEnvelope[0].maxIr` (MEF 139 `BasicIaIpUniAccessLink`, docs/mef-sonata-mapping.md
 * P10/P11); null for a direction the configuration leaves open. A configuration of another `@type`, or a rate
 * that is not a whole number of kbps, is an {@link ItemProblem} at `pointer`.
 */
export function requestedBandwidth(
  configuration: Json | undefined,
  pointer: string,
): { downloadKbps: number | null; uploadKbps: number | null } | ItemProblem {
  if (!configuration) {
    return {
      code: 'missingProperty',
      propertyPath: pointer,
      reason: 'A productConfiguration is required to add a product.',
    };
  }
  if (configuration['@type'] !== BASIC_INTERNET_ACCESS_TYPE) {
    return {
      code: 'invalidValue',
      propertyPath: `${pointer}/@type`,
      reason: `This seller sells ${BASIC_INTERNET_ACCESS_TYPE} only.`,
    };
  }
  const link = (configuration.ipUniAccessLink ?? {}) as Json;
  const rate = (envelope: string): number | null | ItemProblem => {
    const list = link[envelope];
    const first = Array.isArray(list) ? (list[0] as Json | undefined) : undefined;
    const maxIr = first?.maxIr as { irValue?: unknown; irUnits?: unknown } | undefined;
    if (!maxIr) return null;
    const factor = KBPS_PER_UNIT[String(maxIr.irUnits)];
    const kbps = typeof maxIr.irValue === 'number' && factor ? maxIr.irValue * factor : Number.NaN;
    if (!Number.isInteger(Math.round(kbps * 1e6) / 1e6) || kbps <= 0) {
      return {
        code: 'invalidValue',
        propertyPath: `${pointer}/ipUniAccessLink/${envelope}/0/maxIr`,
        reason: 'The rate must be a positive whole number of kbps.',
      };
    }
    return Math.round(kbps);
  };
  const downloadKbps = rate('egressBwpEnvelope');
  const uploadKbps = rate('ingressBwpEnvelope');
  if (downloadKbps !== null && typeof downloadKbps === 'object') return downloadKbps;
  if (uploadKbps !== null && typeof uploadKbps === 'object') return uploadKbps;
  return { downloadKbps, uploadKbps };
}
