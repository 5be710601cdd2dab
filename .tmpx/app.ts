import { startupSnapshot } from 'node:v8';
import * as m0 from '../src/platform/http/app.js';
(globalThis as any).__keep = [m0];
startupSnapshot.setDeserializeMainFunction(() => {});
