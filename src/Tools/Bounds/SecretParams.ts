/**
 * Which of a request's params are secrets, as the service's definitions name them: a
 * credential-named field, a variable's new value (unless the same request says it is not
 * secret: whether it is, is the service's to know), a swarm secret's `data`. The audit
 * records them as digests; a question to the user shows them as redacted.
 */
import { CREDENTIAL } from "./AnswerBounds.js"

/** Endpoints whose body's `value` is a variable's value. */
const VARIABLE_VALUE = new Set(["write/CreateVariable", "write/UpdateVariableValue"])
/** Endpoints whose body's `data` is a swarm secret's content. */
const SECRET_DATA = new Set(["execute/CreateSwarmSecret", "execute/RotateSwarmSecret"])

/** Whether `key`'s value in `record` (the body itself when `top`) is a secret, for `endpoint` (`group/Endpoint`). */
export const isSecretParam = (
  endpoint: string | undefined,
  record: Readonly<Record<string, unknown>>,
  key: string,
  top: boolean,
): boolean =>
  CREDENTIAL.test(key) ||
  (key === "value" &&
    record.is_secret !== false &&
    (record.is_secret === true || (top && VARIABLE_VALUE.has(endpoint ?? "")))) ||
  (key === "data" && top && SECRET_DATA.has(endpoint ?? ""))
