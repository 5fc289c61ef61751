import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One servable file: how to get its bytes (called once) and its media type. */
export interface StaticFile {
  read(): Buffer;
  contentType: string;
}

interface CachedFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

/**
 * A fixed allow-list of files served from memory: each read once, sent with `Cache-Control: no-cache`, an
 * `ETag` (a matching `If-None-Match` answers 304) and the given security headers. No request path ever
 * reaches the file system, so there is nothing to traverse.
 */
export class StaticFiles {
  private readonly cache = new Map<string, CachedFile>();

  constructor(
    private readonly files: ReadonlyMap<string, StaticFile>,
    readonly securityHeaders: Readonly<Record<string, string>>,
  ) {}

  /** Whether `key` is one of the files. */
  has(key: string): boolean {
    return this.files.has(key);
  }

  /**
   * Sends the file `key` (GET, or HEAD without a body); the caller has checked the method.
   * @returns false, sending nothing, when `key` is not one of the files.
   */
  send(req: IncomingMessage, res: ServerResponse, key: string): boolean {
    const file = this.load(key);
    if (!file) return false;
    const headers = {
      ...this.securityHeaders,
      'content-type': file.contentType,
      'cache-control': 'no-cache',
      etag: file.etag,
    };
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    res.writeHead(200, { ...headers, 'content-length': file.body.length });
    res.end(req.method === 'HEAD' ? undefined : file.body);
    return true;
  }

  private load(key: string): CachedFile | null {
    const cached = this.cache.get(key);
    if (cached) return cached;
    const entry = this.files.get(key);
    if (!entry) return null;
    const body = entry.read();
    const file = {
      body,
      contentType: entry.contentType,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    };
    this.cache.set(key, file);
    return file;
  }
}
