import { describe, expectTypeOf, it } from 'vitest';
import type { PlatformClient } from '../../src/client/client.js';
import type { List } from '../../src/contract/common.js';
import { endpoint } from '../../src/contract/endpoint.js';
import { teams } from '../../src/contract/endpoints/teams.js';
import type { Member, Project } from '../../src/contract/projects.js';
import type { Team, TeamMember } from '../../src/contract/teams.js';
import type { ListedUser, User } from '../../src/contract/users.js';
import { bind } from '../../src/platform/http/route.js';

// The client's methods and the server's bindings are derived from the endpoint declarations by types alone; these
// checks are made by the type checker (`npm run typecheck`, part of `npm test` and CI): a wrong derivation fails it.

describe('types derived from the endpoint declarations', () => {
  it('give the client positional path parameters, then the body or the query, and the declared result', () => {
    type C = PlatformClient;
    expectTypeOf<C['users']['get']>().parameters.toEqualTypeOf<[string]>();
    expectTypeOf<C['users']['get']>().returns.resolves.toEqualTypeOf<User>();
    expectTypeOf<C['users']['list']>().returns.resolves.toEqualTypeOf<List<ListedUser>>();
    expectTypeOf<C['members']['update']>().parameters.toEqualTypeOf<[string, string, { role: Member['role'] }]>();
    expectTypeOf<C['projects']['archive']>().parameters.toEqualTypeOf<[string]>();
    expectTypeOf<C['projects']['archive']>().returns.resolves.toEqualTypeOf<Project>();
    expectTypeOf<C['teams']['delete']>().returns.resolves.toEqualTypeOf<undefined>();
    expectTypeOf<C['teams']['membersAll']>().returns.toEqualTypeOf<AsyncGenerator<TeamMember>>();
    expectTypeOf<C['teams']['listAll']>().returns.toEqualTypeOf<AsyncGenerator<Team>>();

    const client = {} as C;
    const never = () => {
      // @ts-expect-error an unknown query parameter
      void client.users.list('org_1', { colour: 'red' });
      // @ts-expect-error a query value of the wrong type (keepCurrent is 'true' or 'false')
      void client.sessions.revokeAll('user_1', { keepCurrent: true });
      // @ts-expect-error suspending takes no body
      void client.users.suspend('user_1', { reason: 'x' });
      // @ts-expect-error a path parameter is missing
      void client.members.get('proj_1');
      // @ts-expect-error no list of environments is paginated, so there is no environments.listAll
      void client.environments.listAll;
    };
    void never;
  });

  it('make the server bind a handler to every endpoint, answering its declared response', () => {
    const never = () => {
      // @ts-expect-error teams.removeMember (and the others) have no handler
      bind(teams, { list: () => ({ data: [], pagination: { limit: 1, nextCursor: null, hasMore: false } }) });
      const one = { get: endpoint({ ...teams.get }) };
      // @ts-expect-error a team endpoint cannot answer with a number
      bind(one, { get: () => 42 });
    };
    void never;
  });
});
