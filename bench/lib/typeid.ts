import { randomFillSync } from 'node:crypto';

/*
 * TypeIDs (`avr_01h455vb4pex5vsknk084sn02q`: a prefix and a UUIDv7 in Crockford base32) made without
 * typeid-js, which spends ~8 µs per id here. The seed writes a million of them, and the raw ceiling should
 * not pay a library's overhead for ids of the same format.
 */

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
const pool = Buffer.alloc(16 * 4096);
let offset = pool.length;
const bytes = new Uint8Array(16);

/** The 26-character TypeID suffix of 16 bytes (130 bits: two leading zero bits, then the bytes). */
export function encodeTypeIdSuffix(source: Uint8Array): string {
  const first = source[0] ?? 0;
  let out = alphabet[first >> 5] as string;
  out += alphabet[first & 31];
  let accumulator = 0;
  let bits = 0;
  for (let i = 1; i < 16; i++) {
    accumulator = (accumulator << 8) | (source[i] ?? 0);
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(accumulator >> bits) & 31];
    }
    accumulator &= (1 << bits) - 1;
  }
  return out;
}

/**
 * A TypeID with `prefix` whose UUIDv7 carries `atMs` (milliseconds since the epoch; default now) as its
 * timestamp and 74 random bits, so ids sort by the creation time they claim.
 */
export function typeIdAt(prefix: string, atMs = Date.now()): string {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  for (let i = 6; i < 16; i++) bytes[i] = pool[offset + i] as number;
  offset += 16;
  let time = atMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return `${prefix}_${encodeTypeIdSuffix(bytes)}`;
}
