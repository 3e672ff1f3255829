/**
 * import() of a module from outside the program: telemetry's SDK from node_modules, the fleet
 * view's page beside the bundle. Each goes through here, so that the CommonJS build of the program
 * (Node 20, src/Cli/Start.ts) can put in its place the executable's own import(): a script that
 * Node 20 runs from V8's code cache has none that works (scripts/bundle.mjs).
 */
export const load = (specifier: string): Promise<unknown> => import(/* @vite-ignore */ specifier)
