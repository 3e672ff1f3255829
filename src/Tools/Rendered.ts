/**
 * What a tool's outcome is made into for the adapter: text for the assistant, and for failures the
 * same facts as a structured object a program can read (Render.ts, Failure.ts).
 */
import type { ErrorKind, Problem } from "./Catalog/ToolError.js"

export interface StructuredError {
  readonly kind: ErrorKind
  readonly tool: string
  readonly message: string
  readonly selector?: string
  readonly endpoint?: string
  readonly status?: number
  readonly reason?: string
  readonly error?: string
  readonly trace?: ReadonlyArray<string>
  /** Strings for invalid_arguments; for invalid_params, each with the path of the field it is about. */
  readonly problems?: ReadonlyArray<string> | ReadonlyArray<Problem>
  /** invalid_params: the fields the endpoint takes, with their types. */
  readonly accepted?: string
  readonly retryAfter?: string
}

export interface Rendered {
  readonly isError: boolean
  readonly text: string
  readonly structured?: { readonly error: StructuredError }
  /**
   * A success's answer as an object, for clients that read structured results:
   * an answer that is not an object is wrapped as `{ result }`; when the output
   * budget cut the text, only the whole list items shown, and `truncated: true`.
   */
  readonly structuredData?: Readonly<Record<string, unknown>>
  /** The result's `_meta`: where the answer's untrusted values are (Untrusted/Answer.ts). */
  readonly meta?: Readonly<Record<string, unknown>>
  /** What untrusted text the answer carried, in words, for the guard: "the logs of stack web". */
  readonly untrusted?: string | undefined
}
