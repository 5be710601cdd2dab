import type { List, PagingQuery } from '../../contract/common.js';
import type { Member, MemberAdd, MemberPatch } from '../../contract/projects.js';
import type { Ctx } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';
import { requireProjectPermission } from './access.js';
import { loadProject, requireWritable } from './projects.js';

/** `GET /projects/{id}/members`: newest first, offset or cursor paging. */
export function listMembers(ctx: Ctx, projectId: string, q: PagingQuery): List<Member> {
  loadProject(ctx, projectId);
  requireProjectPermission(ctx, projectId, 'members:read');
  const scope = `members:${projectId}`;
  const listing = resolveListing(ctx.cursors, scope, q, {}, {});
  return ctx.stores.projects.listMembers(projectId, listing, (pos) => ctx.cursors.encode(scope, listing.filters, pos));
}

/** A member of a visible project, or `404`. */
function loadMember(ctx: Ctx, projectId: string, userId: string): Member {
  const member = ctx.stores.projects.getMember(projectId, userId);
  if (!member) throw notFound('member');
  return member;
}

export function getMember(ctx: Ctx, projectId: string, userId: string): Member {
  loadProject(ctx, projectId);
  const member = loadMember(ctx, projectId, userId);
  requireProjectPermission(ctx, projectId, 'members:read');
  return member;
}

/** Adds a user of the organization to the project with a role (`422` if not in the organization, `409` if already). */
export function addMember(ctx: Ctx, projectId: string, input: MemberAdd): Member {
  return ctx.tx(() => {
    const project = loadProject(ctx, projectId);
    requireProjectPermission(ctx, projectId, 'members:write');
    requireWritable(project);
    const orgId = ctx.principal.orgId;
    if (!ctx.stores.users.get(orgId, input.userId)) {
      throw invalidField('userId', 'is not a user of this organization');
    }
    if (ctx.stores.projects.memberRole(projectId, input.userId)) {
      throw conflict('the user is already a member of this project');
    }
    ctx.stores.projects.insertMember({
      projectId,
      orgId,
      userId: input.userId,
      role: input.role,
      createdAt: ctx.now(),
    });
    ctx.emit('member.added', { type: 'project', id: projectId }, { userId: input.userId, role: input.role });
    return loadMember(ctx, projectId, input.userId);
  });
}

/** Changes a member's role; the same role again writes nothing. */
export function updateMember(ctx: Ctx, projectId: string, userId: string, patch: MemberPatch): Member {
  return ctx.tx(() => {
    const project = loadProject(ctx, projectId);
    const member = loadMember(ctx, projectId, userId);
    requireProjectPermission(ctx, projectId, 'members:write');
    requireWritable(project);
    if (patch.role === member.role) return member;
    ctx.stores.projects.setMemberRole(projectId, userId, patch.role);
    ctx.emit(
      'member.updated',
      { type: 'project', id: projectId },
      { userId, role: { from: member.role, to: patch.role } },
    );
    return { ...member, role: patch.role };
  });
}

export function removeMember(ctx: Ctx, projectId: string, userId: string): void {
  ctx.tx(() => {
    const project = loadProject(ctx, projectId);
    const member = loadMember(ctx, projectId, userId);
    requireProjectPermission(ctx, projectId, 'members:write');
    requireWritable(project);
    ctx.stores.projects.removeMember(projectId, userId);
    ctx.emit('member.removed', { type: 'project', id: projectId }, { userId, role: member.role });
  });
}
