import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { tempDatabasePath } from './helpers/app.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

const defaults = {
  PORT: 4000,
  HOST: '127.0.0.1',
  DATABASE_URL: './data/gateway.db',
  DATABASE_POOL_SIZE: 10,
  LOG_LEVEL: 'info',
  NODE_ENV: 'development',
  TRUSTED_PROXIES: [],
  REDIS_KEY_PREFIX: 'gateway:',
  GATHERING_WORKER: 'on',
  SHUTDOWN_TIMEOUT_SECONDS: 10,
  SHUTDOWN_DRAIN_SECONDS: 0,
  GATHERING_CONCURRENCY: 16,
  GATHERING_IDLE_POLL_MS: 1000,
  GATHERING_LEASE_SECONDS: 30,
  GATHERING_MAX_ATTEMPTS: 3,
  EVENT_RELAY: 'on',
  EVENT_RELAY_LEASE_SECONDS: 5,
  EVENT_RELAY_POLL_MS: 1000,
  SOURCE_LATENCY_SCALE: 1,
  MERCURE_HISTORY_SIZE: 1000,
  MERCURE_KEEPALIVE_SECONDS: 15,
  GEOCODER: 'offline',
  RATE_LIMIT_WINDOW_SECONDS: 10,
  RATE_LIMIT_PER_TOKEN: 1200,
  RATE_LIMIT_PER_INSTANCE: 6000,
  RATE_LIMIT_PER_ANONYMOUS_ADDRESS: 300,
  SEED_DEMO: true,
};

/** The error `loadConfig` throws for `env`, or a failure when it throws none. */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('when the environment is empty, then every variable takes its default', () => {
    const config = loadConfig({});

    expect(config).toEqual(defaults);
    expect(config.TOKEN_SIGNING_SECRET).toBeUndefined();
  });

  it('when variables are empty strings, then they count as unset', () => {
    const config = loadConfig({
      PORT: '',
      HOST: '',
      DATABASE_URL: '',
      LOG_LEVEL: '',
      TOKEN_SIGNING_SECRET: '',
      SEED_DEMO: '',
      SOURCE_LATENCY_SCALE: undefined,
    });

    expect(config).toEqual(defaults);
  });

  it('when variables are given, then they are parsed to their types', () => {
    const secret = 'x'.repeat(32);

    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      PUBLIC_BASE_URL: 'https://gateway.example.nl/api',
      DATABASE_URL: ':memory:',
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
      TOKEN_SIGNING_SECRET: secret,
      REDIS_URL: 'redis://:secret@127.0.0.1:6380/2',
      REDIS_KEY_PREFIX: 'gw-eu:',
      TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8 ,loopback,::1',
      GATHERING_WORKER: 'off',
      GATHERING_IDLE_POLL_MS: '250',
      GATHERING_CONCURRENCY: '4',
      GATHERING_LEASE_SECONDS: '5',
      GATHERING_MAX_ATTEMPTS: '1',
      EVENT_RELAY: 'off',
      EVENT_RELAY_LEASE_SECONDS: '3',
      EVENT_RELAY_POLL_MS: '250',
      SOURCE_LATENCY_SCALE: '0.5',
      MERCURE_HISTORY_SIZE: '10',
      MERCURE_KEEPALIVE_SECONDS: '2.5',
      GEOCODER: 'pdok',
      PDOK_LOCATIESERVER_URL: 'http://127.0.0.1:9999/locatieserver',
      SEED_DEMO: '0',
      DATABASE_POOL_SIZE: '4',
      UNRELATED: 'ignored',
    });

    expect(config).toEqual({
      PORT: 0,
      HOST: '0.0.0.0',
      PUBLIC_BASE_URL: 'https://gateway.example.nl/api',
      DATABASE_URL: ':memory:',
      DATABASE_POOL_SIZE: 4,
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
      TOKEN_SIGNING_SECRET: secret,
      REDIS_URL: 'redis://:secret@127.0.0.1:6380/2',
      REDIS_KEY_PREFIX: 'gw-eu:',
      TRUSTED_PROXIES: ['127.0.0.1', '10.0.0.0/8', 'loopback', '::1'],
      GATHERING_WORKER: 'off',
      SHUTDOWN_TIMEOUT_SECONDS: 10,
      SHUTDOWN_DRAIN_SECONDS: 0,
      GATHERING_IDLE_POLL_MS: 250,
      GATHERING_CONCURRENCY: 4,
      GATHERING_LEASE_SECONDS: 5,
      GATHERING_MAX_ATTEMPTS: 1,
      EVENT_RELAY: 'off',
      EVENT_RELAY_LEASE_SECONDS: 3,
      EVENT_RELAY_POLL_MS: 250,
      SOURCE_LATENCY_SCALE: 0.5,
      MERCURE_HISTORY_SIZE: 10,
      MERCURE_KEEPALIVE_SECONDS: 2.5,
      GEOCODER: 'pdok',
      PDOK_LOCATIESERVER_URL: 'http://127.0.0.1:9999/locatieserver',
      RATE_LIMIT_WINDOW_SECONDS: 10,
      RATE_LIMIT_PER_TOKEN: 1200,
      RATE_LIMIT_PER_INSTANCE: 6000,
      RATE_LIMIT_PER_ANONYMOUS_ADDRESS: 300,
      SEED_DEMO: false,
    });
  });

  it.each([
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['REDIS_KEY_PREFIX', 'has space'],
    ['GATHERING_WORKER', 'maybe'],
    ['TRUSTED_PROXIES', '127.0.0.1,10.0.0.0/33'],
    ['TRUSTED_PROXIES', 'nginx'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['GATHERING_IDLE_POLL_MS', '5'],
    ['PUBLIC_BASE_URL', 'ftp://gateway.example.nl'],
    ['PUBLIC_BASE_URL', 'https://gateway.example.nl/?instance=1'],
  ])('when %s is %s, then throws a ConfigError naming it', (name, value) => {
    const error = configError({ [name]: value });

    expect(error.message).toMatch(new RegExp(`^ {2}${name}: `, 'm'));
    expect(error.message.split('\n')).toHaveLength(2);
  });

  it('when PORT is not a number, then throws a ConfigError naming PORT', () => {
    const error = configError({ PORT: 'abc' });

    expect(error.name).toBe('ConfigError');
    expect(error.message).toMatch(/^ {2}PORT: /m);
    expect(error.message.split('\n')).toHaveLength(2);
  });

  it('when PORT is above 65535, then throws a ConfigError naming PORT', () => {
    const error = configError({ PORT: '70000' });

    expect(error.message).toMatch(/^ {2}PORT: /m);
    expect(error.message.split('\n')).toHaveLength(2);
  });

  it.each(['file:///var/gw.db', 'mysql://gateway@127.0.0.1/gateway'])(
    'when DATABASE_URL is the URL %s, then throws a ConfigError instead of taking it for a file path',
    (url) => {
      const error = configError({ DATABASE_URL: url });

      expect(error.message).toBe(
        'Invalid configuration:\n  DATABASE_URL: must be a SQLite file path, :memory: or a postgres:// URL',
      );
    },
  );

  it.each(['postgres://gateway@127.0.0.1/gateway', 'postgresql://db.example:6432/gw?sslmode=require'])(
    'when DATABASE_URL is the PostgreSQL URL %s, then it is kept as given',
    (url) => {
      expect(loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '25' })).toMatchObject({
        DATABASE_URL: url,
        DATABASE_POOL_SIZE: 25,
      });
    },
  );

  it('when TOKEN_SIGNING_SECRET is shorter than 32 characters, then throws a ConfigError naming it', () => {
    const error = configError({ TOKEN_SIGNING_SECRET: 'x'.repeat(31) });

    expect(error.message).toBe(
      'Invalid configuration:\n  TOKEN_SIGNING_SECRET: must be at least 32 characters',
    );
  });

  it('when several variables are invalid, then the error names each of them', () => {
    const error = configError({ PORT: '-1', LOG_LEVEL: 'loud', SEED_DEMO: 'yes' });

    const named = error.message
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(':')[0]);
    expect(named.sort()).toEqual(['LOG_LEVEL', 'PORT', 'SEED_DEMO']);
  });
});

describe('the service with an invalid configuration', () => {
  it('when started with PORT=abc, then exits non-zero naming PORT on stderr', async () => {
    const database = tempDatabasePath();
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: projectRoot,
        env: { ...process.env, PORT: 'abc', DATABASE_URL: database.path, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // Should the service start after all, stop it rather than leave it running.
      const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });

      const code = await new Promise<number | null>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (exitCode) => resolve(exitCode));
      });
      clearTimeout(guard);

      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(stderr).toMatch(/^ {2}PORT: /m);
    } finally {
      database.remove();
    }
  });
});
