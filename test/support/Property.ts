/**
 * A property test: fast-check's own `assert` over the arbitraries, as one test of
 * @effect/vitest's `it`. Arbitraries given as a record reach the body as one object, given
 * as a list as one array. The count is the one given (`runs(n)`, test/support/Runs.ts),
 * else fast-check's global one, which Runs.ts scales.
 * - `property`: the body throws, or returns false, where the property fails;
 * - `liveProperty`: the body is an Effect, run on the live clock.
 */
import { it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "fast-check"

type Arbitraries =
  | ReadonlyArray<FastCheck.Arbitrary<unknown>>
  | { readonly [key: string]: FastCheck.Arbitrary<unknown> }

/** What the arbitraries give: an object for a record, an array for a list. */
type Values<A> = { -readonly [K in keyof A]: A[K] extends FastCheck.Arbitrary<infer T> ? T : never }

interface Options {
  readonly fastCheck?: FastCheck.Parameters<unknown>
  readonly timeout?: number
}

const together = <A extends Arbitraries>(arbitraries: A): FastCheck.Arbitrary<Values<A>> =>
  (Array.isArray(arbitraries)
    ? FastCheck.tuple(...(arbitraries as ReadonlyArray<FastCheck.Arbitrary<unknown>>))
    : FastCheck.record(arbitraries as { readonly [key: string]: FastCheck.Arbitrary<unknown> })) as never

export const property = <const A extends Arbitraries>(
  name: string,
  arbitraries: A,
  body: (values: Values<A>) => unknown,
  options?: Options,
) =>
  it(
    name,
    () => {
      FastCheck.assert(
        FastCheck.property(together(arbitraries), (values) => body(values) !== false),
        options?.fastCheck as FastCheck.Parameters<[Values<A>]>,
      )
    },
    options?.timeout,
  )

export const liveProperty = <const A extends Arbitraries>(
  name: string,
  arbitraries: A,
  body: (values: Values<A>) => Effect.Effect<unknown, unknown>,
  options?: Options,
) =>
  it(
    name,
    () =>
      FastCheck.assert(
        FastCheck.asyncProperty(together(arbitraries), async (values) => {
          await Effect.runPromise(body(values))
        }),
        options?.fastCheck as FastCheck.Parameters<[Values<A>]>,
      ),
    options?.timeout,
  )
