import { startupSnapshot } from 'node:v8';
import { Hono } from 'hono';
(globalThis as any).__keep = [Hono];
startupSnapshot.setDeserializeMainFunction(() => {});
