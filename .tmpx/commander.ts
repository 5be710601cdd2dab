import { startupSnapshot } from 'node:v8';
import { Command } from 'commander';
(globalThis as any).__keep = [Command];
startupSnapshot.setDeserializeMainFunction(() => {});
