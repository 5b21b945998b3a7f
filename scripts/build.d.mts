// Types of scripts/build.mjs (plain JavaScript, so that bin/waymark.js can load it before any loader).
export function sourceHash(): string;
export function builtEntry(outDir?: string): string | null;
export function serverEntry(outDir?: string): { built: boolean; url: string };
export function build(outDir?: string): string;
