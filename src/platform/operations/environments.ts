import {
  type Environment,
  type EnvironmentCreate,
  type EnvironmentPatch,
  MAX_CONFIG_KEYS,
  type Promote,
} from '../../contract/projects.js';
import type { Ctx } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { requireProjectPermission } from './access.js';
import { loadProject, requireWritable } from './projects.js';

// Config values may be secrets: events name the keys that changed, never their values.

/** `GET /projects/{id}/environments`: all of them (a small, bounded set), in creation order. */
export function listEnvironments(ctx: Ctx, projectId: string): { data: Environment[] } {
  loadProject(ctx, projectId);
  requireProjectPermission(ctx, projectId, 'resources:read');
  return { data: ctx.stores.projects.environments(projectId) };
}

/** An environment of a visible project, or `404`. */
function loadEnvironment(ctx: Ctx, projectId: string, name: string): Environment {
  const env = ctx.stores.projects.getEnvironment(projectId, name);
  if (!env) throw notFound('environment');
  return env;
}

export function getEnvironment(ctx: Ctx, projectId: string, name: string): Environment {
  loadProject(ctx, projectId);
  const env = loadEnvironment(ctx, projectId, name);
  requireProjectPermission(ctx, projectId, 'resources:read');
  return env;
}

/** Builds a config object from entries without ever touching `Object.prototype` (a key may be `__proto__`). */
function toConfig(entries: Iterable<[string, string]>): Record<string, string> {
  const config = Object.fromEntries(entries) as Record<string, string>;
  if (Object.keys(config).length > MAX_CONFIG_KEYS) throw invalidField('config', `at most ${MAX_CONFIG_KEYS} keys`);
  return config;
}

export function createEnvironment(ctx: Ctx, projectId: string, input: EnvironmentCreate): Environment {
  return ctx.tx(() => {
    const project = loadProject(ctx, projectId);
    requireProjectPermission(ctx, projectId, 'resources:write');
    requireWritable(project);
    const config = toConfig(Object.entries(input.config ?? {}));
    if (ctx.stores.projects.getEnvironment(projectId, input.name)) {
      throw conflict(`the project already has an environment named ${input.name}`);
    }
    const now = ctx.now();
    const env: Environment = {
      id: ctx.ids('environment'),
      projectId,
      name: input.name,
      config,
      createdAt: now,
      updatedAt: now,
    };
    ctx.stores.projects.insertEnvironment(env);
    ctx.emit(
      'environment.created',
      { type: 'environment', id: env.id },
      { projectId, name: env.name, keys: Object.keys(config) },
    );
    return env;
  });
}

/** Merges `config` into the environment's: a string sets a key, `null` deletes it. */
export function updateEnvironment(ctx: Ctx, projectId: string, name: string, patch: EnvironmentPatch): Environment {
  return ctx.tx(() => {
    const project = loadProject(ctx, projectId);
    const env = loadEnvironment(ctx, projectId, name);
    requireProjectPermission(ctx, projectId, 'resources:write');
    requireWritable(project);
    const merged = new Map(Object.entries(env.config));
    const set: string[] = [];
    const removed: string[] = [];
    for (const [key, value] of Object.entries(patch.config)) {
      if (value === null) {
        if (merged.delete(key)) removed.push(key);
      } else {
        merged.set(key, value);
        set.push(key);
      }
    }
    const next: Environment = { ...env, config: toConfig(merged), updatedAt: ctx.now() };
    ctx.stores.projects.updateEnvironment(next);
    ctx.emit('environment.updated', { type: 'environment', id: env.id }, { projectId, name, set, removed });
    return next;
  });
}

/** Deletes an environment; the project's default environment cannot be deleted (`409`). */
export function deleteEnvironment(ctx: Ctx, projectId: string, name: string): void {
  ctx.tx(() => {
    const project = loadProject(ctx, projectId);
    const env = loadEnvironment(ctx, projectId, name);
    requireProjectPermission(ctx, projectId, 'resources:write');
    requireWritable(project);
    if (project.settings.defaultEnvironment === name) {
      throw conflict(`${name} is the project's default environment; choose another default first`);
    }
    ctx.stores.projects.removeEnvironment(projectId, env.id);
    ctx.emit('environment.deleted', { type: 'environment', id: env.id }, { projectId, name });
  });
}

/** Replaces the target's config with the source's, atomically, and returns the target. */
export function promoteEnvironment(ctx: Ctx, projectId: string, input: Promote): Environment {
  return ctx.tx(() => {
    const project = loadProject(ctx, projectId);
    const source = loadEnvironment(ctx, projectId, input.source);
    const target = loadEnvironment(ctx, projectId, input.target);
    requireProjectPermission(ctx, projectId, 'resources:write');
    requireWritable(project);
    if (input.source === input.target) throw invalidField('target', 'must differ from source');
    const next: Environment = { ...target, config: { ...source.config }, updatedAt: ctx.now() };
    ctx.stores.projects.updateEnvironment(next);
    ctx.emit(
      'environment.promoted',
      { type: 'environment', id: target.id },
      { projectId, source: source.name, target: target.name, keys: Object.keys(source.config) },
    );
    return next;
  });
}
