/**
 * The secret pages and forms with sign-in, on the HTTP server under `<public>/secrets/`: a page a
 * secret is handed over on at `/secrets/{id}`, a form a secret is taken in on at
 * `/secrets/form/{id}`, both behind the same sign-in of their person at the issuer
 * (PageSignIn.ts). A form opens only for the issuer and subject of the caller who asked: the
 * browser signed in as them is shown it (GET) and may send it (POST, with its CSRF token, once,
 * before it closes, its body bounded: Confirmation/SecretFormPage.ts); any other browser is sent
 * to sign in (GET), or answered nothing (POST), and the form stays open for its person.
 */
import type * as NodeHttp from "node:http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { FormStore } from "../Confirmation/SecretForm.js"
import { SecretPages, type SecretPagesShape } from "../Confirmation/SecretPages.js"
import type { SignInSettingsShape } from "../Settings/SignIn.js"
import * as PageSignIn from "./PageSignIn.js"

export const PREFIX = PageSignIn.PREFIX

/** Where the forms are, under the public URL. */
const FORMS = `${PREFIX}form/`

const FORM = /^\/secrets\/form\/([A-Za-z0-9_-]{22})$/

const write = (res: NodeHttp.ServerResponse, { status, headers, body }: PageSignIn.Answer, method: string) =>
  void res.writeHead(status, headers as NodeHttp.OutgoingHttpHeaders).end(method === "HEAD" ? undefined : body)

/** Form `id`: answered for the person this browser is signed in as; else a sign-in begun (GET), or nothing. */
const form =
  (signIn: PageSignIn.PageSignIn, forms: () => Promise<FormStore>, origin: string, now: () => number) =>
  async (id: string, req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse): Promise<void> => {
    const path = `${FORMS}${id}`
    const method = req.method ?? "GET"
    const owner = signIn.visitor(path, req.headers.cookie)
    if (owner !== undefined) {
      // The form's page loaded with the first request for one: a start loads none of it.
      const [store, page] = await Promise.all([forms(), import("../Confirmation/SecretFormPage.js")])
      return void page.answer(store, id, now, { owner, origin })(req, res)
    }
    // Not signed in as the form's person: nothing of it is read, nor sent.
    req.resume()
    if (method !== "GET" && method !== "HEAD") return write(res, PageSignIn.nothing({ connection: "close" }), method)
    const store = await forms()
    return write(res, await signIn.begin(path, store.ownerOf(id, now())), method)
  }

/** A request under PREFIX: a form's, or a page's (and the issuer's return). */
const serve = (
  signIn: PageSignIn.PageSignIn,
  forms: (() => Promise<FormStore>) | undefined,
  origin: string,
  now: () => number,
) => {
  const pages = PageSignIn.serve(signIn)
  const forms_ = forms === undefined ? undefined : form(signIn, forms, origin, now)
  return (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse): Promise<void> => {
    const found = FORM.exec((req.url ?? "/").split("?")[0] ?? "/")
    return found !== null && forms_ !== undefined ? forms_(found[1] ?? "", req, res) : pages(req, res)
  }
}

/** The route of the pages and forms with sign-in. */
export type Route = ReturnType<typeof serve>

/** The pages and forms with sign-in over `pages`, and their route; none without sign-in's pages' client. */
export const make = (
  settings: SignInSettingsShape,
  pages: SecretPagesShape,
  now: () => number = Date.now,
  fetcher: typeof fetch = globalThis.fetch,
): Option.Option<{ readonly pages: SecretPagesShape; readonly route: Route }> =>
  Option.map(PageSignIn.make(settings, pages.store, now, fetcher), (signIn) => {
    const base = settings.publicUrl
    return {
      pages: {
        ...pages,
        signedIn: {
          urlOf: (id) => `${base}${PREFIX}${id}`,
          ...(pages.forms === undefined ? {} : { formUrlOf: (id: string) => `${base}${FORMS}${id}` }),
        },
      },
      route: serve(signIn, pages.forms, new URL(base).origin, now),
    }
  })

/**
 * The pages the tools hand secrets over and take them in on, with sign-in (`settings`) and its
 * pages' client: a signed-in caller's on the HTTP server, and the route that serves them; as
 * provided otherwise, with no route.
 */
export const over = (settings: Option.Option<SignInSettingsShape>) =>
  Effect.map(SecretPages, (pages): { readonly pages: SecretPagesShape; readonly route: Option.Option<Route> } =>
    Option.match(
      Option.flatMap(settings, (s) => make(s, pages)),
      {
        onNone: () => ({ pages, route: Option.none() }),
        onSome: (made) => ({ pages: made.pages, route: Option.some(made.route) }),
      },
    ),
  )
