import { Router } from 'express';
import { avatarIdFor } from '../core/avatar/avatar-id';
import { announcementsOn } from '../core/state/announced-cache';
import type { TokenService } from '../core/token/token-service';
import { degradedStores } from '../internal/guarded-store';
import { sendJson } from '../internal/http';
import { onlyMethods } from '../internal/router-shell';
import { PROBE_KEY } from '../internal/store-probe';
import type { ResolvedOptions } from './options';

/** One check of {@link HealthReport}. */
export interface HealthCheck {
  /** What was checked: `state store`, `announcements (sessions:revoked)`, `signing key`... */
  name: string;
  /** Whether it passed. */
  ok: boolean;
  /** How long it took, in ms. */
  ms: number;
  /** What is wrong, when it failed: never a secret or a password (store addresses without their user part). */
  problem?: string;
}

/** What `auth.health()` finds: `ok` when every check passed. */
export interface HealthReport {
  status: 'ok' | 'failing';
  checks: HealthCheck[];
}

/** What the checks read. */
export interface HealthParts {
  resolved: ResolvedOptions;
  tokens: TokenService;
  /** Checks the plugins add (the identity provider's keys...), by name. */
  extra?: () => ReadonlyArray<[string, () => Promise<void>]>;
}

async function timed(name: string, check: () => Promise<unknown>): Promise<HealthCheck> {
  const started = performance.now();
  try {
    await check();
    return { name, ok: true, ms: Math.round(performance.now() - started) };
  } catch (err) {
    const problem = err instanceof Error ? err.message : String(err);
    return { name, ok: false, ms: Math.round(performance.now() - started), problem };
  }
}

/**
 * Checks that the service can answer: each store answers a read within its timeout (the guard's
 * limit), the announcements between instances are subscribed, and the signing key of the
 * issuer can be read. Store errors name the store by its address without the user part.
 */
export async function checkHealth(parts: HealthParts): Promise<HealthReport> {
  const { resolved, tokens } = parts;
  const stores: Array<[string, () => Promise<unknown>]> = [
    ['state store', () => resolved.stateStore.get(PROBE_KEY)],
    ['user store', () => resolved.userStore.get(PROBE_KEY)],
    ['credential store', () => resolved.credentialStore.get(PROBE_KEY)],
    ['avatar store', () => resolved.avatarStore.id(avatarIdFor(PROBE_KEY))],
  ];
  if (resolved.auditStore !== undefined) {
    const audit = resolved.auditStore;
    stores.push(['audit store', () => audit.list({ limit: 1 })]);
  }
  const checks = await Promise.all([
    ...stores.map(([name, read]) => timed(name, read)),
    timed('signing key', async () => {
      if ((await tokens.signingSecret(resolved.issuer)).length === 0) throw new Error('the secret reader gave no secret');
    }),
    ...(parts.extra?.() ?? []).map(([name, check]) => timed(name, check)),
  ]);
  for (const { channel, live } of announcementsOn(resolved.stateStore)) {
    checks.push({ name: `announcements (${channel})`, ok: live, ms: 0, ...(live ? {} : { problem: 'not subscribed: other instances changes are not heard (caches are bypassed meanwhile)' }) });
  }
  const degraded = [...degradedStores()];
  for (const check of checks) {
    const since = check.ok ? undefined : degraded.find(([store]) => check.problem?.startsWith(store) === true)?.[1];
    if (since !== undefined) check.problem = `${check.problem} (failing since ${new Date(since).toISOString()})`;
  }
  return { status: checks.every((check) => check.ok) ? 'ok' : 'failing', checks };
}

/**
 * The health routes, for an internal port or path: `GET /livez` answers 200 while the process
 * serves requests; `GET /readyz` 200 with the report when every check passes, 503 with it
 * otherwise (a load balancer or Kubernetes takes the instance out of rotation).
 */
export function healthRouter(report: () => Promise<HealthReport>): Router {
  const router = Router();
  router.get('/livez', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, { status: 'ok' });
  });
  router.get('/readyz', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    report().then((found) => sendJson(res, found.status === 'ok' ? 200 : 503, found), next);
  });
  // Another method on a probe path is a JSON 405; any other path goes on to the app.
  onlyMethods(router, '/livez', 'GET');
  onlyMethods(router, '/readyz', 'GET');
  return router;
}
