#!/usr/bin/env node
// The `waymark` command. It runs the JavaScript build in dist/ when that build is of the current
// sources (scripts/build.mjs, `npm run build`), and the TypeScript sources through tsx's loader
// otherwise: an edit never runs stale code, and a build only makes the start faster.
import { serverEntry } from '../scripts/build.mjs';

const { built, url } = serverEntry();
if (!built) (await import('tsx/esm/api')).register();
const { main } = await import(url);
process.exitCode = await main(process.argv.slice(2));
