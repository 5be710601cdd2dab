import { writeHeapSnapshot } from 'node:v8';
import * as p from '../src/platform/index.js';
import * as c from '../src/cli/main.js';
(globalThis as any).__keep = [p, c];
writeHeapSnapshot('/tmp/s2/plat.heapsnapshot');
