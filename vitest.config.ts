import { defineConfig } from "vitest/config"

/**
 * The tests by lane, as vitest projects. `npm test` runs them all; each lane
 * alone: `npx vitest run --project unit` (`npm run test:unit`), `integration`, `e2e`.
 * - unit: no root, no network, no program beyond Node, no build. These files
 *   share no port, file or process, so `npm run test:unit` runs them in two
 *   workers at once (--maxWorkers 2), and each worker loads the modules once
 *   for all its files (isolate: false): state lives in layers, not modules.
 *   `npm test` runs every file one after another, as on this machine's two
 *   cores the e2e lane's servers want them.
 * - integration: real Redis, Chromium and containers (Debian's programs, which
 *   `npm test` installs first: scripts/system-deps.mjs).
 * - e2e: the built server (dist/), started as clients start it, over stdio and
 *   HTTP, in both protocol eras.
 */
const shared = {
  testTimeout: 20_000,
  hookTimeout: 20_000,
}

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/PlainSummary.ts"],
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          pool: "forks",
          isolate: false,
        },
      },
      { test: { ...shared, name: "integration", include: ["test/integration/**/*.test.ts"] } },
      { test: { ...shared, name: "e2e", include: ["test/e2e/**/*.test.ts"] } },
    ],
  },
})
