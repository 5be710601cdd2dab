import {
  type Environment,
  type EnvironmentCreate,
  type EnvironmentPatch,
  MAX_CONFIG_KEYS,
  type Promote,
} from '../../contract/projects.js';
import type { Ctx } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { loadProject, requireWritable } from './projects.js';

// Config values may be secrets: events name the keys that changed, never their values.

/** `GET /projects/{id}/environments`: all of them (a small, bounded set), in creation order. */
export async function listEnvironments(ctx: Ctx, projectId: string): Promise<{ data: Environment[] }> {
  await loadProject(ctx, projectId);
  return { data: await ctx.stores.projects.environments(projectId) };
}

/** An environment of a visible project, or `404`. */
async function loadEnvironment(ctx: Ctx, projectId: string, name: string): Promise<Environment> {
  const env = await ctx.stores.projects.getEnvironment(projectId, name);
  if (!env) throw notFound('environment');
  return env;
}

export async function getEnvironment(ctx: Ctx, projectId: string, name: string): Promise<Environment> {
  await loadProject(ctx, projectId);
  return loadEnvironment(ctx, projectId, name);
}

/** Builds a config object from entries without ever touching `Object.prototype` (a key may be `__proto__`). */
function toConfig(entries: Iterable<[string, string]>): Record<string, string> {
  const config = Object.fromEntries(entries) as Record<string, string>;
  if (Object.keys(config).length > MAX_CONFIG_KEYS) throw invalidField('config', `at most ${MAX_CONFIG_KEYS} keys`);
  return config;
}

export async function createEnvironment(ctx: Ctx, projectId: string, input: EnvironmentCreate): Promise<Environment> {
  return ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    requireWritable(project);
    const config = toConfig(Object.entries(input.config ?? {}));
    if (await ctx.stores.projects.getEnvironment(projectId, input.name)) {
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
    await ctx.stores.projects.insertEnvironment(env);
    await ctx.emit(
      'environment.created',
      { type: 'environment', id: env.id },
      { projectId, name: env.name, keys: Object.keys(config) },
    );
    return env;
  });
}

/** Merges `config` into the environment's: a string sets a key, `null` deletes it. */
export async function updateEnvironment(
  ctx: Ctx,
  projectId: string,
  name: string,
  patch: EnvironmentPatch,
): Promise<Environment> {
  return ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    const env = await loadEnvironment(ctx, projectId, name);
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
    await ctx.stores.projects.updateEnvironment(next);
    await ctx.emit('environment.updated', { type: 'environment', id: env.id }, { projectId, name, set, removed });
    return next;
  });
}

/** Deletes an environment; the project's default environment cannot be deleted (`409`). */
export async function deleteEnvironment(ctx: Ctx, projectId: string, name: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    const env = await loadEnvironment(ctx, projectId, name);
    requireWritable(project);
    if (project.settings.defaultEnvironment === name) {
      throw conflict(`${name} is the project's default environment; choose another default first`);
    }
    await ctx.stores.projects.removeEnvironment(projectId, env.id);
    await ctx.emit('environment.deleted', { type: 'environment', id: env.id }, { projectId, name });
  });
}

/** Replaces the target's config with the source's, atomically, and returns the target. */
export async function promoteEnvironment(ctx: Ctx, projectId: string, input: Promote): Promise<Environment> {
  return ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    const source = await loadEnvironment(ctx, projectId, input.source);
    const target = await loadEnvironment(ctx, projectId, input.target);
    requireWritable(project);
    if (input.source === input.target) throw invalidField('target', 'must differ from source');
    const next: Environment = { ...target, config: { ...source.config }, updatedAt: ctx.now() };
    await ctx.stores.projects.updateEnvironment(next);
    await ctx.emit(
      'environment.promoted',
      { type: 'environment', id: target.id },
      { projectId, source: source.name, target: target.name, keys: Object.keys(source.config) },
    );
    return next;
  });
}
