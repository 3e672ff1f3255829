/**
 * The service's client wired to a double through the client's bundle, as an
 * embedding program would wire it.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as ClientBundle from "../../src/Bundle/Client.js"
import * as Config from "../../src/Config.js"
import * as SvcTransport from "../../src/Service/Transport.js"
import * as PatternReader from "../../src/Shared/PatternReader.js"
import * as ParamsCheck from "../../src/Tools/Params/ParamsCheck.js"
import * as InProcess from "./InProcess.js"

export const KEY = "key-1234"
export const SECRET = "secret-api-value-5678"
export const USER = "admin"
export const PASSWORD = "password-of-admin-9876"

/** The double's options for a service that knows this API key (`Double.scoped(Layers.API_KEY)`), which `apiKey` configures. */
export const API_KEY = { apiKey: { key: KEY, secret: SECRET } }

export const apiKey = (url: string, timeoutMs = Config.DEFAULT_TIMEOUT_MS): Config.SvcConfigShape => ({
  url,
  timeoutMs,
  credentials: { _tag: "ApiKey", key: Redacted.make(KEY), secret: Redacted.make(SECRET) },
})

export const login = (
  url: string,
  password = PASSWORD,
  timeoutMs = Config.DEFAULT_TIMEOUT_MS,
): Config.SvcConfigShape => ({
  url,
  timeoutMs,
  credentials: { _tag: "Login", username: USER, password: Redacted.make(password) },
})

/**
 * The pattern reader of every server the tests make in a thread: its workers started by the first
 * regex a test reads, then kept for the thread's other tests, as one server keeps them for all its
 * calls (each start loads RE2 in a thread of its own). A test of the reader's own pools, queue and
 * end makes its own (NamePattern.test.ts, Embedding.test.ts, Library.test.ts).
 */
const patterns: Layer.Layer<PatternReader.PatternReader> = Layer.succeed(
  PatternReader.PatternReader,
  PatternReader.makePool(),
)

/**
 * The client's bundle over the configuration `config` (and the HttpClient beneath it: by default,
 * a test's sandbox at that URL in-process, InProcess.ts, else the real transport), with the
 * thread's pattern reader.
 */
export const client = (
  config: Config.SvcConfigShape,
  http: Layer.Layer<HttpClient.HttpClient> = InProcess.layerFor(config.url) ?? SvcTransport.layer,
) => ClientBundle.layerWith(() => Config.layerValue(config)).pipe(Layer.provideMerge(http), Layer.merge(patterns))

/**
 * The shipped definitions' check, made once per test thread and given to every server the tests
 * make: read, prepared and each endpoint compiled once, as one server does for all its calls, not
 * once per test's server. A test of the check's own loading makes its own (ParamsCheck.test.ts).
 */
export const params: Layer.Layer<ParamsCheck.ParamsCheck> = Layer.succeed(
  ParamsCheck.ParamsCheck,
  Effect.runSync(ParamsCheck.shipped),
)
