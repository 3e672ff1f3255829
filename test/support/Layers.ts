/**
 * The service layers wired to a double, as an embedding program would wire them.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Auth from "../../src/Auth.js"
import * as RefusedKeys from "../../src/Callers/RefusedKeys.js"
import * as Config from "../../src/Config.js"
import * as SvcTransport from "../../src/Service/Transport.js"
import * as SvcClient from "../../src/SvcClient.js"
import * as Pages from "../../src/Tools/Pages.js"

export const KEY = "key-1234"
export const SECRET = "secret-api-value-5678"
export const USER = "admin"
export const PASSWORD = "password-of-admin-9876"

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

/** The client of the service, with the default page it learns once. */
export const client = (config: Config.SvcConfigShape, http: Layer.Layer<HttpClient.HttpClient> = SvcTransport.layer) =>
  Pages.layer.pipe(
    Layer.provideMerge(SvcClient.layer),
    Layer.provideMerge(Auth.layer),
    Layer.provideMerge(Config.layerValue(config)),
    Layer.provide(http),
    Layer.provide(RefusedKeys.layerOff),
  )
