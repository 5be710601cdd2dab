import { startupSnapshot } from 'node:v8';
import * as z from 'zod';
(globalThis as any).__keep = [z];
startupSnapshot.setDeserializeMainFunction(() => {});
