import { startupSnapshot } from 'node:v8';
import * as m0 from 'zod';
(globalThis as any).__keep = [m0];
startupSnapshot.setDeserializeMainFunction(() => {});
