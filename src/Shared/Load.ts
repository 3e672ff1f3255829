/**
 * import() of a module named only at run time, from outside the program: the fleet view's page
 * beside the bundle. It goes through here, so that the CommonJS build of the program (Node 20,
 * src/Cli/Start.ts) can put in its place the executable's own import(): a script that Node 20 runs
 * from V8's code cache has none that works (scripts/bundle.mjs). An import() of a package by name
 * is written as one, not through here: the image's build reads it (deploy/image/keep-modules.mjs),
 * and the CommonJS build makes it a require().
 */
export const load = (specifier: string): Promise<unknown> => import(/* @vite-ignore */ specifier)
