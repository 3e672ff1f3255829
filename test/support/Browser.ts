/**
 * A person's browser as far as a sign-in needs one, without a browser: it follows redirects and
 * keeps cookies (their paths and Max-Age honoured, every host on 127.0.0.1 sharing them as a
 * browser does across ports), and says where it ended. The authorization server of the tests
 * (AuthServer.ts) answers its login and consent by itself.
 */

export interface Visited {
  readonly status: number
  readonly body: string
  /** The URL the last answer came from. */
  readonly url: string
  /** Every URL requested, in order. */
  readonly hops: ReadonlyArray<string>
}

interface Cookie {
  readonly value: string
  readonly path: string
}

export interface Browser {
  /** Opens `url`, following redirects (at most 12). */
  readonly open: (url: string, headers?: Record<string, string>) => Promise<Visited>
  /** The first answer alone, its redirect not followed. */
  readonly peek: (url: string, headers?: Record<string, string>) => Promise<Response>
  /** A form's fields POSTed to `url` from its own page (same origin), with this browser's cookies. */
  readonly post: (
    url: string,
    fields: Record<string, string>,
    headers?: Record<string, string>,
  ) => Promise<{ readonly status: number; readonly body: string }>
}

export const make = (): Browser => {
  const jar = new Map<string, Cookie>()
  const cookiesFor = (url: URL) =>
    [...jar]
      .filter(([, cookie]) => url.pathname === cookie.path || url.pathname.startsWith(cookie.path.replace(/\/?$/, "/")))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join("; ")
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim())
      const at = pair.indexOf("=")
      const name = pair.slice(0, at)
      const path = attributes.find((a) => a.toLowerCase().startsWith("path="))?.slice(5) ?? "/"
      const maxAge = attributes.find((a) => a.toLowerCase().startsWith("max-age="))
      if (maxAge !== undefined && Number(maxAge.slice(8)) <= 0) jar.delete(name)
      else jar.set(name, { value: pair.slice(at + 1), path })
    }
  }
  const peek = async (url: string, headers: Record<string, string> = {}) => {
    const cookie = cookiesFor(new URL(url))
    const response = await fetch(url, {
      redirect: "manual",
      headers: { ...headers, ...(cookie === "" ? {} : { cookie }) },
    })
    keep(response)
    return response
  }
  const open = async (url: string, headers: Record<string, string> = {}) => {
    const hops: Array<string> = []
    let next = url
    for (let hop = 0; hop < 12; hop++) {
      hops.push(next)
      const response = await peek(next, headers)
      const location = response.headers.get("location")
      if (location === null || response.status < 300 || response.status >= 400) {
        return { status: response.status, body: await response.text(), url: next, hops }
      }
      await response.arrayBuffer()
      next = new URL(location, next).href
    }
    throw new Error(`too many redirects: ${hops.join(" ")}`)
  }
  const post = async (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
    const cookie = cookiesFor(new URL(url))
    const response = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: new URL(url).origin,
        "sec-fetch-site": "same-origin",
        ...headers,
        ...(cookie === "" ? {} : { cookie }),
      },
      body: new URLSearchParams(fields).toString(),
    })
    keep(response)
    return { status: response.status, body: await response.text() }
  }
  return { open, peek, post }
}

/** A form's CSRF token, as its page gives it; empty where it gives none. */
export const csrfOf = (page: string): string => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? ""
