import type { MessagesByLocale } from '../core/i18n/translations';
import type { Router } from 'express';
import { configError } from '../base/errors';
import { AUTH_EVENT_TYPES } from '../core/audit/auth-event';
import type { RateLimitRule } from '../core/limits/rate-limiter';
import type { BearerResolver, GuardFactory } from '../core/middleware/authenticator';
import type { RouteTable } from './route-table';
import {
  LOGIN_PHASES,
  type AuthPlugin,
  type LoginPhases,
  type PluginContext,
  type PluginContribution,
  type PluginServices,
  type SignInMethod,
  type GuardedAction,
  type ActionCall,
  type ActionName,
} from '../plugin-api/plugin';
import type { CompletedLogin, LoginRequest } from '../providers/provider';
import { identityKey } from '../internal/email-address';
import { noopLogger, type Logger, logTo } from '../base/logger';

/**
 * Checks a list of plugins: each made by a factory (a name and `setup`), no name twice.
 * @throws AuthError (`config`) naming what is wrong.
 */
export function checkPlugins(plugins: readonly AuthPlugin[]): AuthPlugin[] {
  const names = new Set<string>();
  for (const plugin of plugins) {
    if (plugin === null || typeof plugin !== 'object' || typeof plugin.name !== 'string' || typeof plugin.setup !== 'function') {
      throw configError('plugins must be made by plugin factories, e.g. plugins: [twoFactor({ key })] (an object with name and setup())');
    }
    if (names.has(plugin.name)) throw configError(`plugin ${plugin.name} is listed twice (or is also turned on by an option of createAuth)`);
    names.add(plugin.name);
  }
  for (const plugin of plugins) {
    const missing = (plugin.requires ?? []).filter((name) => !names.has(name));
    if (missing.length > 0)
      throw configError(`plugin ${plugin.name} needs the ${missing.join(', ')} plugin${missing.length === 1 ? '' : 's'}: add ${missing.length === 1 ? 'it' : 'them'} to plugins (in any order)`);
  }
  return [...plugins];
}

/** The event types of the core and of a list of plugins. */
export function knownEventTypes(plugins: readonly AuthPlugin[]): ReadonlySet<string> {
  return new Set<string>([...AUTH_EVENT_TYPES, ...plugins.flatMap((p) => p.eventTypes ?? [])]);
}

/** The rate limits a list of plugins declares, with their defaults. */
export function pluginRateLimits(plugins: readonly AuthPlugin[]): Record<string, RateLimitRule | false> {
  return Object.assign({}, ...plugins.map((p) => p.rateLimits ?? {})) as Record<string, RateLimitRule | false>;
}

/**
 * The plugins in the order they are set up: as given, except that each comes after the plugins it
 * `requires` or uses (`optional`) that are on.
 * @throws AuthError (`config`) when plugins need each other in a circle, naming them.
 */
function setupOrder(plugins: readonly AuthPlugin[]): AuthPlugin[] {
  const byName = new Map(plugins.map((p) => [p.name, p]));
  const ordered: AuthPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: AuthPlugin, path: string[]): void => {
    if (state.get(plugin.name) === 'done') return;
    if (state.get(plugin.name) === 'visiting') throw configError(`plugins need each other in a circle: ${[...path.slice(path.indexOf(plugin.name)), plugin.name].join(' -> ')}`);
    state.set(plugin.name, 'visiting');
    for (const name of [...(plugin.requires ?? []), ...(plugin.optional ?? [])]) {
      const needed = byName.get(name);
      if (needed !== undefined) visit(needed, [...path, plugin.name]);
    }
    state.set(plugin.name, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}

/** The plugins of one service: checked when given, set up once, then asked for their parts. */
export class PluginHost {
  private readonly contributions: Array<{ name: string; parts: PluginContribution }> = [];
  /** The login phases, each from the one plugin that has it. */
  readonly phases: LoginPhases = {};
  private bearerResolver: BearerResolver | undefined;

  /** The bearer credentials a plugin brings (API keys), if one does. */
  bearer(): BearerResolver | undefined {
    return this.bearerResolver;
  }

  private readonly plugins: readonly AuthPlugin[];

  /** @param plugins - as given to `createAuth({ plugins })`, core plugins first; set up in that order, each after those it requires or uses. */
  /**
   * @param plugins - the app's plugins (checked, then ordered for setup).
   * @param logger - where a failing `after` hook is told of.
   */
  constructor(
    plugins: readonly AuthPlugin[],
    private readonly logger: Logger = noopLogger,
  ) {
    this.plugins = setupOrder(checkPlugins(plugins));
  }

  /** The names of the plugins in use, in setup order. */
  names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  /** Whether a plugin of this name is on. */
  has(name: string): boolean {
    return this.plugins.some((p) => p.name === name);
  }

  /** The catalogs of the plugins' words. */
  messages(): MessagesByLocale[] {
    return this.plugins.flatMap((p) => (p.messages ? [p.messages] : []));
  }

  /** The error codes the plugins declare. */
  errorCodes(): string[] {
    return this.plugins.flatMap((p) => [...(p.errorCodes ?? [])]);
  }

  /** Sets every plugin up, each after those it needs; a phase taken by two plugins is a start-up error. */
  setup(context: PluginContext): void {
    const owners = new Map<string, string>();
    for (const plugin of this.plugins) {
      const parts = plugin.setup(context);
      this.contributions.push({ name: plugin.name, parts });
      for (const phase of LOGIN_PHASES) {
        const step = parts.phases?.[phase];
        if (step === undefined) continue;
        const owner = owners.get(phase);
        if (owner !== undefined) throw configError(`plugins ${owner} and ${plugin.name} both take the login phase ${phase}; use one of them`);
        owners.set(phase, plugin.name);
        // eslint-disable-next-line no-restricted-syntax -- the core's own phase names
        (this.phases as Record<string, unknown>)[phase] = step.bind(parts.phases);
      }
      if (parts.bearer !== undefined) {
        const owner = owners.get('bearer');
        if (owner !== undefined) throw configError(`plugins ${owner} and ${plugin.name} both take Authorization: Bearer; use one of them`);
        owners.set('bearer', plugin.name);
        this.bearerResolver = parts.bearer;
      }
      for (const name of Object.keys(parts.guards ?? {})) {
        const owner = owners.get(`m.${name}`);
        if (owner !== undefined) throw configError(`plugins ${owner} and ${plugin.name} both offer m.${name}(); use one of them`);
        owners.set(`m.${name}`, plugin.name);
      }
    }
  }

  /**
   * Adds every plugin's routes, each claimed in `table` (which holds the core's): a route two
   * owners claim fails naming both.
   */
  addRoutes(router: Router, table: RouteTable, rateLimit: (name: string, identity: string) => Promise<void>): void {
    for (const { name, parts } of this.contributions) {
      const routes = parts.routes;
      if (typeof routes === 'function') routes(table.claiming(router, name));
      else if (routes !== undefined) table.add(router, name, routes, rateLimit);
    }
    table.finish(router);
  }

  /** The providers the plugins bring. */
  providers(): PluginContribution['providers'] & object {
    return this.contributions.flatMap(({ parts }) => parts.providers ?? []);
  }

  /** The guard factories of the plugins, by middleware name (`org`). */
  /** The health checks of every plugin, by name. */
  healthChecks(): Array<[string, () => Promise<void>]> {
    return this.contributions.flatMap(({ parts }) => Object.entries(parts.health ?? {}));
  }

  guards(): Map<string, GuardFactory> {
    return new Map(this.contributions.flatMap(({ parts }) => Object.entries(parts.guards ?? {})));
  }

  /** A service a plugin offers, by name. */
  service<K extends keyof PluginServices>(name: K): PluginServices[K] | undefined;
  /** A service a plugin offers that it does not declare in {@link PluginServices}. */
  service<T>(name: string): T | undefined;
  service(name: string): unknown {
    for (const { parts } of this.contributions) if (parts.services && Object.hasOwn(parts.services, name)) return parts.services[name];
    return undefined;
  }

  /**
   * Runs every plugin's `before` hook of the action (its `actions`, and what older plugins give as
   * `signInPolicy` and `actionGuard`, as the same hooks); the first refusal is thrown.
   */
  async beforeAction(call: ActionCall): Promise<void> {
    // One canonical form, whatever the request spelled (` Owner@Example.com\t`): a hook never sees a spelling it does not know.
    const canonical: ActionCall = call.address === undefined ? call : { ...call, address: identityKey(call.address) };
    for (const { parts } of this.contributions) {
      await parts.actions?.[call.action]?.before?.(canonical);
      if (canonical.address !== undefined && canonical.method !== undefined) await parts.signInPolicy?.(canonical.address, canonical.method, canonical.login);
      const guarded = guardedName(canonical);
      if (guarded !== undefined && canonical.req !== undefined) await parts.actionGuard?.check(guarded, canonical.req);
    }
  }

  /**
   * Runs every plugin's `after` hook of the action. The action has happened: a hook that fails is
   * logged, and neither changes the answer nor keeps the other plugins' hooks from running.
   */
  async afterAction(call: ActionCall, outcome: 'succeeded' | 'failed'): Promise<void> {
    const guarded = guardedName(call);
    for (const { name, parts } of this.contributions) {
      try {
        await parts.actions?.[call.action]?.after?.(call, outcome);
        if (guarded !== undefined && call.req !== undefined) await (outcome === 'failed' ? parts.actionGuard?.failed : parts.actionGuard?.succeeded)?.(guarded, call.req);
      } catch (err) {
        logTo(this.logger).warn('plugin {plugin}: its after hook of {action} failed: {error}', { plugin: name, action: call.action, error: (err as Error)?.message ?? String(err) });
      }
    }
  }

  /** {@link PluginHost.beforeAction} for an address known (the action follows from `method`). */
  checkSignIn(address: string, method: SignInMethod, login?: CompletedLogin): Promise<void> {
    return this.beforeAction({ action: ACTION_OF_METHOD[method], address, method, login });
  }

  /** Whether a login's address is asked for: some plugin hooks `sign-in` (a login then reads its user's address to ask it). */
  hasSignInPolicy(): boolean {
    return this.contributions.some(({ parts }) => parts.signInPolicy !== undefined || parts.actions?.['sign-in']?.before !== undefined);
  }

  /** {@link PluginHost.beforeAction} when the request arrives. */
  checkAction(action: GuardedAction, req: LoginRequest): Promise<void> {
    return this.beforeAction(callOf(action, req));
  }

  /** {@link PluginHost.afterAction}: an attempt failed (for `address`, when known). */
  actionFailed(action: GuardedAction, req: LoginRequest, address?: string): Promise<void> {
    return this.afterAction(callOf(action, req, address), 'failed');
  }

  /** {@link PluginHost.afterAction}: an attempt succeeded (for `address`, when known). */
  actionSucceeded(action: GuardedAction, req: LoginRequest, address?: string): Promise<void> {
    return this.afterAction(callOf(action, req, address), 'succeeded');
  }

  /** Runs every plugin's `userDeleted`. */
  async userDeleted(userId: string): Promise<void> {
    for (const { parts } of this.contributions) await parts.userEvents?.userDeleted?.(userId);
  }

  /** Runs every plugin's `userIdChanged`. */
  async userIdChanged(from: string, to: string): Promise<void> {
    for (const { parts } of this.contributions) await parts.userEvents?.userIdChanged?.(from, to);
  }

  /** Runs every plugin's `credentialsReset` and gathers what they removed. */
  async credentialsReset(userId: string): Promise<string[]> {
    const removed: string[] = [];
    for (const { parts } of this.contributions) removed.push(...((await parts.userEvents?.credentialsReset?.(userId)) ?? []));
    return removed;
  }

  /** Closes every plugin, last set up first. */
  async close(): Promise<void> {
    for (const { parts } of [...this.contributions].reverse()) await parts.close?.();
  }
}

/** The action each way of signing in is part of. */
const ACTION_OF_METHOD: Record<SignInMethod, ActionName> = { password: 'sign-in', login: 'sign-in', signup: 'sign-up', recovery: 'recovery', link: 'email-link' };

/** The actions older guards were told of, by their older names, and back. */
const ACTION_OF_GUARDED: Record<GuardedAction, ActionName> = {
  login: 'sign-in',
  signup: 'sign-up',
  'password-reset': 'recovery',
  'email-link': 'email-link',
  'invitation-accept': 'invitation-accept',
};

/** The call of an action when its request arrives (a password sign-in's method is `password`). */
function callOf(action: GuardedAction, req: LoginRequest, address?: string): ActionCall {
  return { action: ACTION_OF_GUARDED[action], req, method: action === 'login' ? 'password' : undefined, address: address === undefined ? undefined : identityKey(address) };
}

/** An older guard's name of a call made when the request arrived; `undefined` for a call an older guard never got (a completed login). */
function guardedName(call: ActionCall): GuardedAction | undefined {
  if (call.req === undefined) return undefined;
  const found = (Object.keys(ACTION_OF_GUARDED) as GuardedAction[]).find((name) => ACTION_OF_GUARDED[name] === call.action);
  return found;
}
