import { startupSnapshot } from 'node:v8';
import * as m0 from 'cli-table3';
(globalThis as any).__keep = [m0];
startupSnapshot.setDeserializeMainFunction(() => {});
