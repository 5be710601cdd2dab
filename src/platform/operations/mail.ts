import type { OrgRole } from '../../contract/permissions.js';
import type { BaseCtx } from '../context.js';
import type { Mail } from '../store/outbox.js';

/** A message before it is queued: the outbox gives it an id and a time. */
export type Message = Omit<Mail, 'id' | 'createdAt'>;

/** Queues a message in the outbox, inside the caller's transaction: no write, no mail. Returns the mail's id. */
export async function sendMail(ctx: BaseCtx, message: Message, orgId: string | null): Promise<string> {
  const id = ctx.ids('mail');
  await ctx.stores.outbox.enqueue({ ...message, id, createdAt: ctx.now(), orgId });
  return id;
}

/** What an invitation e-mail says. */
export interface InvitationMailInput {
  to: string;
  name: string | null;
  organizationName: string;
  inviterName: string | null;
  role: OrgRole;
  /** The acceptance link, token included. */
  link: string;
  expiresAt: string;
}

/** The invitation e-mail: plain text, the acceptance link as its one link. */
export function invitationMessage(m: InvitationMailInput): Message {
  const article = m.role === 'admin' || m.role === 'owner' ? 'an' : 'a';
  const who = m.inviterName ? `${m.inviterName} invited you` : 'You have been invited';
  const text = [
    `Hello ${m.name ?? m.to},`,
    '',
    `${who} to join ${m.organizationName} as ${article} ${m.role}.`,
    '',
    'Accept the invitation and choose your password here:',
    m.link,
    '',
    `This link works once and expires at ${m.expiresAt}. If you did not expect this invitation, ignore this e-mail.`,
    '',
  ].join('\n');
  return { to: m.to, subject: `You're invited to join ${m.organizationName}`, text, links: [m.link] };
}
