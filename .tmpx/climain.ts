import { startupSnapshot } from 'node:v8';
import * as p from '../src/cli/main.js';
(globalThis as any).__keep = [p];
startupSnapshot.setDeserializeMainFunction(() => {});
