import { startupSnapshot } from 'node:v8';
import * as p from '../src/platform/index.js';
(globalThis as any).__keep = [p];
startupSnapshot.setDeserializeMainFunction(() => {});
