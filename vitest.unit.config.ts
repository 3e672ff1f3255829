import { defineConfig, mergeConfig } from "vitest/config"
import base from "./vitest.config.js"

/**
 * `npm run test:unit`: the quick loop, every test file but those that start the
 * built server (named *.e2e.test.ts, a rule test/Hygiene.test.ts holds), so no
 * build is needed. These files share no port, file or process, so they run in
 * two workers at once, and each worker loads the modules once for all its files
 * (isolate: false): state lives in layers, not modules, and loading effect, the
 * SDK and the tools again for each file was half of the loop's CPU.
 * `npm test` runs every file with the base config.
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: ["test/**/*.e2e.test.ts"],
      pool: "forks",
      fileParallelism: true,
      isolate: false,
      poolOptions: { forks: { minForks: 1, maxForks: 2 } },
    },
  }),
)
