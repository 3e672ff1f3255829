/**
 * Two services behind one server, as the several-services tests configure
 * them: `prod` and `staging`, each with its own API key.
 */

export const PROD = { key: "prod-key", secret: "prod-secret-value" }
export const STAGING = { key: "staging-key", secret: "staging-secret-value" }

/** SVC_SERVICES=prod,staging, each at its URL with its own key. */
export const env = (prod: string, staging: string): Record<string, string> => ({
  SVC_SERVICES: "prod,staging",
  SVC_PROD_URL: prod,
  SVC_PROD_API_KEY: PROD.key,
  SVC_PROD_API_SECRET: PROD.secret,
  SVC_STAGING_URL: staging,
  SVC_STAGING_API_KEY: STAGING.key,
  SVC_STAGING_API_SECRET: STAGING.secret,
})

export interface Result {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly isError?: boolean
  readonly structuredContent?: { readonly error?: Record<string, unknown> }
}

/** The text of a tool result. */
export const textOf = (result: unknown): string => (result as Result).content[0]?.text ?? ""
