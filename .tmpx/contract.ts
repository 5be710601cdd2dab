import { startupSnapshot } from 'node:v8';
import * as a from '../src/contract/users.js'; import * as b from '../src/contract/projects.js'; import * as c from '../src/contract/organizations.js'; import * as d from '../src/contract/sessions.js'; import * as e from '../src/contract/api-keys.js'; import * as f from '../src/contract/auth.js'; import * as g from '../src/contract/sso.js'; import * as h from '../src/contract/events.js'; import * as i from '../src/contract/teams.js';
(globalThis as any).__keep = [a,b,c,d,e,f,g,h,i];
startupSnapshot.setDeserializeMainFunction(() => {});
