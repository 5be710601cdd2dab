import type { List, PagingQuery } from '../../contract/common.js';
import type { Member, MemberAdd, MemberPatch } from '../../contract/projects.js';
import type { Ctx } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';
import { loadProject, requireWritable } from './projects.js';

/** `GET /projects/{id}/members`: newest first, offset or cursor paging. */
export async function listMembers(ctx: Ctx, projectId: string, q: PagingQuery): Promise<List<Member>> {
  await loadProject(ctx, projectId);
  const scope = `members:${projectId}`;
  const listing = resolveListing(ctx.cursors, scope, q, {}, {});
  return ctx.stores.projects.listMembers(projectId, listing, (pos) => ctx.cursors.encode(scope, listing.filters, pos));
}

/** A member of a visible project, or `404`. */
async function loadMember(ctx: Ctx, projectId: string, userId: string): Promise<Member> {
  const member = await ctx.stores.projects.getMember(projectId, userId);
  if (!member) throw notFound('member');
  return member;
}

export async function getMember(ctx: Ctx, projectId: string, userId: string): Promise<Member> {
  await loadProject(ctx, projectId);
  return loadMember(ctx, projectId, userId);
}

/** Adds a user of the organization to the project with a role (`422` if not in the organization, `409` if already). */
export async function addMember(ctx: Ctx, projectId: string, input: MemberAdd): Promise<Member> {
  return ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    requireWritable(project);
    const orgId = ctx.principal.orgId;
    if (!(await ctx.stores.users.get(orgId, input.userId))) {
      throw invalidField('userId', 'is not a user of this organization');
    }
    if (await ctx.stores.projects.memberRole(projectId, input.userId)) {
      throw conflict('the user is already a member of this project');
    }
    await ctx.stores.projects.insertMember({
      projectId,
      orgId,
      userId: input.userId,
      role: input.role,
      createdAt: ctx.now(),
    });
    await ctx.emit('member.added', { type: 'project', id: projectId }, { userId: input.userId, role: input.role });
    return loadMember(ctx, projectId, input.userId);
  });
}

/** Changes a member's role; the same role again writes nothing. */
export async function updateMember(ctx: Ctx, projectId: string, userId: string, patch: MemberPatch): Promise<Member> {
  return ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    const member = await loadMember(ctx, projectId, userId);
    requireWritable(project);
    if (patch.role === member.role) return member;
    await ctx.stores.projects.setMemberRole(projectId, userId, patch.role);
    await ctx.emit(
      'member.updated',
      { type: 'project', id: projectId },
      { userId, role: { from: member.role, to: patch.role } },
    );
    return { ...member, role: patch.role };
  });
}

export async function removeMember(ctx: Ctx, projectId: string, userId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const project = await loadProject(ctx, projectId);
    const member = await loadMember(ctx, projectId, userId);
    requireWritable(project);
    await ctx.stores.projects.removeMember(projectId, userId);
    await ctx.emit('member.removed', { type: 'project', id: projectId }, { userId, role: member.role });
  });
}
