/**
 * A test's HTTP server let go of: it takes no new connection, and those it holds are closed at
 * once, idle, kept alive or mid-answer, so that a scope ends without waiting on a client to close
 * its side (a client left holding one would otherwise hold the release).
 */
import type * as Http from "node:http"

export const close = (server: Http.Server): Promise<void> =>
  new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
