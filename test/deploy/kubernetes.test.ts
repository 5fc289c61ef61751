import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type Config, loadConfig } from '../../src/config.js';

/*
 * deploy/kubernetes (issue 37), rendered by `kubectl kustomize` as `kubectl apply -k` would apply it, each
 * object validated against the Kubernetes API's published schemas (kubernetes-models: the API's OpenAPI
 * definitions compiled to ajv validators), then read the way the gateway reads it: the Dockerfile's ENV, the
 * ConfigMap and each container's env through src/config.ts's `loadConfig`, so the probe paths, ports and the
 * drain's timings are checked against what the process will actually do, defaults included.
 */

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A rendered Kubernetes object, read by field in the assertions below. */
// biome-ignore lint/suspicious/noExplicitAny: rendered YAML; every field used is asserted by exact value.
type K8sObject = any;

/** The schema of each kind the overlays render, by `apiVersion/kind`. */
const models: Record<string, new (data: K8sObject) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

/** Renders an overlay with `kubectl kustomize`; throws with kubectl's message when it fails. */
function render(overlay: string): K8sObject[] {
  const yaml = execFileSync(
    'kubectl',
    ['kustomize', join(projectRoot, 'deploy/kubernetes/overlays', overlay)],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return parseAllDocuments(yaml).map((document) => document.toJS());
}

/** The schema errors of one object (empty when valid), or why it has no schema. */
function schemaErrors(object: K8sObject): string[] {
  const model = models[`${object.apiVersion}/${object.kind}`];
  if (!model) return [`no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new model(object).validate();
    return [];
  } catch (error) {
    return [String(error)];
  }
}

/** The `ENV` of the Dockerfile's last stage, as the image gives it to every process. */
function imageEnvironment(): Record<string, string> {
  const dockerfile = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lastStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const [, pairs = ''] of lastStage.matchAll(/^ENV (.+)$/gm))
    for (const [, name = '', value = ''] of pairs.matchAll(/(\w+)=(\S+)/g)) env[name] = value;
  return env;
}

/** What a secret key stands for when the configuration is loaded (the operator's Secret is not rendered). */
const secretExamples: Record<string, string> = {
  DATABASE_URL: 'postgres://gateway:secret@postgres:5432/gateway',
  REDIS_URL: 'redis://redis:6379',
};

/** The gateway's configuration in a container, as `loadConfig` parses it there. */
function containerConfig(objects: K8sObject[], container: K8sObject): Config {
  const env: Record<string, string> = { ...imageEnvironment() };
  for (const source of container.envFrom ?? []) {
    const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.configMapRef.name);
    expect(map, `ConfigMap ${source.configMapRef.name}`).toBeDefined();
    Object.assign(env, map.data);
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (!variable.valueFrom.secretKeyRef.optional) {
      const example = secretExamples[variable.valueFrom.secretKeyRef.key];
      expect(example, `an example for secret key ${variable.valueFrom.secretKeyRef.key}`).toBeDefined();
      env[variable.name] = example as string;
    }
  }
  return loadConfig(env);
}

/** The command of a package.json script (`npm run start:prod`), split into words. */
function npmScript(name: string): string[] {
  return JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')).scripts[name].split(' ');
}

/** Seconds in an nginx time (`2s`, `60s`, `1h`). */
function nginxSeconds(value: string): number {
  const match = /^(\d+)(s|m|h)?$/.exec(value);
  if (!match) throw new Error(`not an nginx time: ${value}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[(match[2] ?? 's') as 's' | 'm' | 'h'];
}

/** The shipped nginx file's directives: the `server` block's own, and each `location = …` block's. */
function nginxDirectives(): { server: Map<string, string>; locations: Map<string, Map<string, string>> } {
  const text = readFileSync(join(projectRoot, 'deploy/nginx/connectivity-gateway.conf'), 'utf8').replace(
    /#.*$/gm,
    '',
  );
  const serverBlock = text.slice(text.indexOf('server {'));
  const locations = new Map<string, Map<string, string>>();
  for (const [, path = '', body = ''] of serverBlock.matchAll(/location = (\S+) \{([^}]*)\}/g))
    locations.set(path, directives(body));
  return { server: directives(serverBlock.replace(/location [^{]*\{[^}]*\}/g, '')), locations };
}

function directives(body: string): Map<string, string> {
  return new Map(
    [...body.matchAll(/^\s*(\w+)\s+([^;{]+);/gm)].map(([, name = '', value = '']) => [name, value.trim()]),
  );
}

/** The seconds a container's `preStop` sleeps (`sleep N`), 0 without one. */
function preStopSeconds(container: K8sObject): number {
  const command: string[] | undefined = container.lifecycle?.preStop?.exec?.command;
  if (command === undefined) return 0;
  expect(command[0]).toBe('sleep');
  return Number(command[1]);
}

/**
 * Seconds a stop needs beyond the preStop sleep, the drain and the requests in flight: the worker's leases
 * given back, the outbox relayed, Redis and the store closed (`stopGracefully`).
 */
const STOP_MARGIN_SECONDS = 10;

const rendered = { single: render('single'), shared: render('shared') };
const workloads = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'Deployment');

describe.each(Object.entries(rendered))('the %s overlay', (_overlay, objects) => {
  it('when rendered, then every object is valid against the Kubernetes API schema of its kind', () => {
    expect(objects.length).toBeGreaterThan(0);
    expect(objects.map((object) => [object.kind, object.metadata.name, schemaErrors(object)])).toEqual(
      objects.map((object) => [object.kind, object.metadata.name, []]),
    );
  });

  it.each(workloads(objects).map((deployment) => [deployment.metadata.name, deployment]))(
    'when %s runs, then its probes, ports, command and drain agree with src/config.ts',
    (_name, deployment) => {
      const pod = deployment.spec.template.spec;
      expect(pod.containers).toHaveLength(1);
      const container = pod.containers[0];
      const config = containerConfig(objects, container);
      const role = deployment.metadata.labels['app.kubernetes.io/component'];
      expect(['api', 'worker']).toContain(role);

      // The process: the package's own production start, listening where the pod's network reaches it.
      expect(container.command).toEqual(npmScript(role === 'api' ? 'start:prod' : 'worker:prod'));
      expect(config.HOST).toBe('0.0.0.0');
      expect(config.NODE_ENV).toBe('production');
      expect(container.ports).toEqual([
        { name: 'http', containerPort: config.PORT },
        { name: 'metrics', containerPort: config.METRICS_PORT },
      ]);
      expect(deployment.spec.template.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(config.METRICS_PORT),
        'prometheus.io/path': '/metrics',
      });

      // Probes on the health routes, by the port's name; the startup probe allows longer than liveness.
      expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      const patience = (probe: K8sObject) => probe.periodSeconds * probe.failureThreshold;
      expect(patience(container.startupProbe)).toBeGreaterThan(patience(container.livenessProbe));
      expect(container.startupProbe.failureThreshold).toBeGreaterThan(
        container.livenessProbe.failureThreshold,
      );

      // The grace period holds the preStop sleep, the drain, the requests in flight and the rest of the stop.
      const stop =
        preStopSeconds(container) + config.SHUTDOWN_DRAIN_SECONDS + config.SHUTDOWN_TIMEOUT_SECONDS;
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(stop + STOP_MARGIN_SECONDS);
      if (role === 'api') expect(preStopSeconds(container)).toBeGreaterThan(0);

      // Non-root on a read-only root filesystem; /tmp writable.
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      // The image's user, whose uid the kubelet can check against runAsNonRoot.
      const imageUser = /^USER (\d+):(\d+)$/m.exec(readFileSync(join(projectRoot, 'Dockerfile'), 'utf8'));
      expect([pod.securityContext.runAsUser, pod.securityContext.runAsGroup]).toEqual(
        imageUser?.slice(1).map(Number),
      );
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      const tmp = container.volumeMounts.find((mount: K8sObject) => mount.mountPath === '/tmp');
      expect(pod.volumes.find((volume: K8sObject) => volume.name === tmp?.name)?.emptyDir).toBeDefined();

      // Requests and limits for memory and CPU, each request within its limit.
      const { requests, limits } = container.resources;
      expect(Object.keys(requests).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(limits).sort()).toEqual(['cpu', 'memory']);
      const mebibytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)?.[1]);
      expect(mebibytes(requests.memory)).toBeLessThanOrEqual(mebibytes(limits.memory));
    },
  );

  it('when the API is exposed, then the Ingresses route only its http port, with the nginx file’s stream settings', () => {
    const service = objects.find((o) => o.kind === 'Service');
    const api = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway');
    const config = containerConfig(objects, api.spec.template.spec.containers[0]);
    expect(service.spec.ports).toEqual([
      { name: 'http', port: 80, targetPort: 'http' },
      { name: 'metrics', port: config.METRICS_PORT, targetPort: 'metrics' },
    ]);
    // The Service selects the API's pods, and no worker's.
    expect(api.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    for (const worker of workloads(objects).filter((o) => o !== api))
      expect(worker.spec.template.metadata.labels).not.toMatchObject(service.spec.selector);

    const ingresses = objects.filter((o) => o.kind === 'Ingress');
    const routes = ingresses.flatMap((ingress) =>
      ingress.spec.rules.flatMap((rule: K8sObject) =>
        rule.http.paths.map((path: K8sObject) => ({ ingress, path })),
      ),
    );
    expect(routes.map(({ path }) => path.backend.service)).toEqual(
      routes.map(() => ({ name: service.metadata.name, port: { name: 'http' } })),
    );
    for (const ingress of ingresses) expect(ingress.spec.ingressClassName).toBe('nginx');

    // deploy/nginx: the server's settings on every route, each streaming location's on its Exact path.
    const nginx = nginxDirectives();
    const annotation = (ingress: K8sObject, name: string) =>
      ingress.metadata.annotations[`nginx.ingress.kubernetes.io/${name}`];
    const serverSeconds = (name: string) => String(nginxSeconds(nginx.server.get(name) ?? ''));
    for (const ingress of ingresses) {
      expect(annotation(ingress, 'proxy-body-size')).toBe(nginx.server.get('client_max_body_size'));
      expect(annotation(ingress, 'proxy-http-version')).toBe(nginx.server.get('proxy_http_version'));
      expect(annotation(ingress, 'proxy-connect-timeout')).toBe(serverSeconds('proxy_connect_timeout'));
      expect(annotation(ingress, 'proxy-next-upstream')).toBe(nginx.server.get('proxy_next_upstream'));
      expect(annotation(ingress, 'proxy-next-upstream-tries')).toBe(
        nginx.server.get('proxy_next_upstream_tries'),
      );
      expect(annotation(ingress, 'proxy-next-upstream-timeout')).toBe(
        serverSeconds('proxy_next_upstream_timeout'),
      );
    }
    const streaming = [...nginx.locations].filter(
      ([, settings]) => settings.get('proxy_buffering') === 'off',
    );
    expect(streaming.map(([path]) => path).sort()).toEqual(['/.well-known/mercure', '/graphql']);
    for (const [path, settings] of streaming) {
      const route = routes.find((r) => r.path.path === path);
      expect(route?.path.pathType).toBe('Exact');
      expect(annotation(route?.ingress, 'proxy-buffering')).toBe('off');
      expect(annotation(route?.ingress, 'proxy-read-timeout')).toBe(
        String(nginxSeconds(settings.get('proxy_read_timeout') ?? '')),
      );
      expect(annotation(route?.ingress, 'proxy-send-timeout')).toBe(
        String(nginxSeconds(settings.get('proxy_send_timeout') ?? '')),
      );
    }
    const rest = routes.find((r) => r.path.path === '/');
    expect(rest?.path.pathType).toBe('Prefix');
    expect(annotation(rest?.ingress, 'proxy-buffering')).toBeUndefined();
    expect(annotation(rest?.ingress, 'proxy-read-timeout')).toBe(serverSeconds('proxy_read_timeout'));
  });
});

describe('the image', () => {
  it('when it starts without a command, then it runs npm run start:prod, as a non-root user, with its data on /data', () => {
    const dockerfile = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8');
    const lastStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(lastStage).toMatch(/^\nFROM node:24-trixie-slim\n/);
    // Every stage on Node.js 24 (Debian 13), the runtime engines.node names; no stage installs a compiler.
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1])).toEqual([
      'node:24-trixie-slim',
      'node:24-trixie-slim',
    ]);
    expect(dockerfile).not.toMatch(/apt-get|g\+\+|python3/);
    expect(JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')).engines).toEqual({
      node: '>=24',
    });
    const instruction = (name: string) =>
      JSON.parse(new RegExp(`^${name} (.+)$`, 'm').exec(lastStage)?.[1] ?? 'null');
    expect([...instruction('ENTRYPOINT'), ...instruction('CMD')]).toEqual(npmScript('start:prod'));
    expect(/^USER (\d+):(\d+)$/m.exec(lastStage)?.slice(1)).toEqual(['1000', '1000']);
    expect(loadConfig(imageEnvironment()).DATABASE_URL).toBe('/data/gateway.db');
    expect(lastStage).toMatch(/^VOLUME \/data$/m);
  });
});

describe('the overlays’ own parts', () => {
  it('when single is rendered, then one replica runs the worker on SQLite on a persistent volume, recreated, unscaled', () => {
    const objects = rendered.single;
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'Ingress',
      'Ingress',
      'PersistentVolumeClaim',
      'Service',
    ]);
    const [deployment] = workloads(objects);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    const pod = deployment.spec.template.spec;
    const config = containerConfig(objects, pod.containers[0]);
    expect([config.REDIS_URL, config.GATHERING_WORKER]).toEqual([undefined, 'on']);
    // The SQLite file lies on the claim's mount.
    const claim = objects.find((o) => o.kind === 'PersistentVolumeClaim');
    const volume = pod.volumes.find(
      (v: K8sObject) => v.persistentVolumeClaim?.claimName === claim.metadata.name,
    );
    const mount = pod.containers[0].volumeMounts.find((m: K8sObject) => m.name === volume.name);
    expect(config.DATABASE_URL).toBe(`${mount.mountPath}/gateway.db`);
    expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
  });

  it('when shared is rendered, then API replicas and workers run on the Secret’s PostgreSQL and Redis, with budgets and an autoscaler', () => {
    const objects = rendered.shared;
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      expect.stringMatching(/^ConfigMap\/gateway-config-/),
      'Deployment/gateway',
      'Deployment/gateway-worker',
      'HorizontalPodAutoscaler/gateway',
      'Ingress/gateway',
      'Ingress/gateway-streams',
      'PodDisruptionBudget/gateway',
      'PodDisruptionBudget/gateway-worker',
      'Service/gateway',
    ]);
    const [api, worker] = ['gateway', 'gateway-worker'].map((name) =>
      objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name),
    );
    expect(api.spec.replicas).toBeGreaterThan(1);
    expect(api.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    for (const deployment of [api, worker]) {
      const container = deployment.spec.template.spec.containers[0];
      const fromSecret = Object.fromEntries(
        container.env
          .filter((variable: K8sObject) => variable.valueFrom?.secretKeyRef)
          .map((variable: K8sObject) => [variable.name, variable.valueFrom.secretKeyRef]),
      );
      expect(fromSecret).toEqual({
        DATABASE_URL: { name: 'gateway-secrets', key: 'DATABASE_URL' },
        REDIS_URL: { name: 'gateway-secrets', key: 'REDIS_URL' },
        TOKEN_SIGNING_SECRET: { name: 'gateway-secrets', key: 'TOKEN_SIGNING_SECRET', optional: true },
      });
      const config = containerConfig(objects, container);
      expect(config.DATABASE_URL).toBe(secretExamples.DATABASE_URL);
      expect(config.GATHERING_WORKER).toBe('off');
      expect(deployment.spec.template.spec.volumes.map((v: K8sObject) => v.name)).toEqual(['tmp']);
    }

    for (const budget of objects.filter((o) => o.kind === 'PodDisruptionBudget')) {
      const target = budget.metadata.name === 'gateway' ? api : worker;
      expect(target.spec.template.metadata.labels).toMatchObject(budget.spec.selector.matchLabels);
      expect(budget.spec.maxUnavailable).toBe(1);
    }
    const autoscaler = objects.find((o) => o.kind === 'HorizontalPodAutoscaler');
    expect(autoscaler.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'gateway',
    });
    expect(autoscaler.spec.minReplicas).toBe(api.spec.replicas);
    expect(autoscaler.spec.maxReplicas).toBeGreaterThan(autoscaler.spec.minReplicas);
  });

  it('when an object breaks its schema, then the validator says so', () => {
    const deployment = structuredClone(workloads(rendered.single)[0]);
    deployment.spec.replicas = 'one';
    deployment.spec.template.spec.containers[0].ports[0].containerPort = '4000';
    delete deployment.spec.selector;
    const errors = schemaErrors(deployment).join('\n');
    expect(errors).toMatch(/selector/);
    expect(errors).toMatch(/replicas/);
    expect(errors).toMatch(/containerPort/);
    expect(schemaErrors({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } })).toEqual([
      'no schema for v1 Pod',
    ]);
  });
});
