/**
 * The command line's flags as Node's parseArgs reads them (Cli/Flags.ts): `--flag value`
 * and `--flag=value` alike, and every refusal one line in the command's own words.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "fast-check"
import * as Cli from "../../../src/Cli/CommandLine.js"
import * as Setup from "../../../src/Cli/Setup/Options.js"

describe("the command line", () => {
  it("takes --http-port=8080 as it takes --http-port 8080", () => {
    const serve = { _tag: "Serve", sandbox: false, httpPort: 8080 }
    expect(Cli.parse(["--http-port=8080"])).toEqual(serve)
    expect(Cli.parse(["--http-port", "8080"])).toEqual(serve)
    expect(Cli.parse(["--sandbox", "--http-port=0", "--estate=large", "--scenario=drift"])).toEqual({
      _tag: "Serve",
      sandbox: true,
      httpPort: 0,
      estate: "large",
      scenario: "drift",
    })
    expect(Cli.parse(["sandbox", "--port=9000"])).toEqual({ _tag: "Sandbox", port: 9000 })
    expect(Cli.parse(["audit", "verify", "--store=redis://r:6379", "--prefix=t:"])).toEqual({
      _tag: "AuditVerify",
      files: [],
      store: "redis://r:6379",
      prefix: "t:",
    })
    expect(Setup.parse(["vscode", "--http=http://127.0.0.1:8765"])).toEqual(
      Either.right({ client: "vscode", sandbox: false, http: "http://127.0.0.1:8765/mcp" }),
    )
  })

  it("reads any port the same in both forms, and refuses one outside 0 to 65535 in both", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.integer({ min: -1000, max: 70_000 }), (port) => {
        const joined = Cli.parse([`--http-port=${port}`])
        expect(Cli.parse(["--http-port", String(port)])).toEqual(joined)
        expect(joined).toEqual(
          port >= 0 && port <= 65535
            ? { _tag: "Serve", sandbox: false, httpPort: port }
            : { _tag: "Invalid", message: "--http-port takes a port from 0 to 65535" },
        )
      }),
    )
  })

  it("serves over stdio when given nothing", () => {
    expect(Cli.parse([])).toEqual({ _tag: "Serve", sandbox: false, httpPort: undefined })
  })

  it("refuses in one line what it does not take, naming the argument as written", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--http-prot=8080"], 'unknown argument "--http-prot=8080"'],
      [["--http-port", "1", "--http-port=2"], 'unknown argument "--http-port=2"'],
      [["--sandbox=yes"], 'unknown argument "--sandbox=yes"'],
      [["--sandbox", "extra"], 'unknown argument "extra"'],
      [["--sandbox", "--", "x"], 'unknown argument "--"'],
      [["-x"], 'unknown argument "-x"'],
      [["serve"], 'unknown argument "serve"'],
      [["--http-port"], "--http-port takes a port from 0 to 65535"],
      [["--http-port="], "--http-port takes a port from 0 to 65535"],
      [["--sandbox", "--estate=huge"], "--estate takes small or large"],
      [
        ["--sandbox", "--services=a,a"],
        "--services takes distinct comma-separated names of lowercase letters, digits and -",
      ],
      [["--services=a"], "--services goes with --sandbox; set SVC_SERVICES otherwise"],
      [["--estate=small"], "--estate goes with --sandbox"],
      [["--scenario=calm"], "--scenario goes with --sandbox"],
      [
        ["sandbox", "--port=x"],
        "usage: svc-mcp sandbox [--port N] [--estate small|large] [--scenario NAME], with N from 0 to 65535",
      ],
      [
        ["sandbox", "--port"],
        "usage: svc-mcp sandbox [--port N] [--estate small|large] [--scenario NAME], with N from 0 to 65535",
      ],
      [["audit", "verify", "--store"], "usage: svc-mcp audit verify [--store URL [--prefix P]] FILE..."],
      [["audit", "verify", "--store=r", "--store=s"], "usage: svc-mcp audit verify [--store URL [--prefix P]] FILE..."],
    ]
    for (const [argv, message] of cases) {
      expect(Cli.parse(argv), argv.join(" ")).toEqual({ _tag: "Invalid", message })
      expect(message).not.toContain("\n")
    }
    expect(Setup.parse(["cursor", "--sandbox=1"])).toEqual(
      Either.left(`unknown argument "--sandbox=1" (${Setup.USAGE})`),
    )
    expect(Setup.parse(["cursor", "--http"])).toEqual(
      Either.left("--http takes the server's http(s) URL, e.g. --http http://127.0.0.1:8765/mcp"),
    )
  })

  it("reads the files around the flags, and the word after a flag that takes a value as its value", () => {
    expect(Cli.parse(["audit", "verify", "a.log", "--store", "redis://r", "b.log"])).toEqual({
      _tag: "AuditVerify",
      files: ["a.log", "b.log"],
      store: "redis://r",
    })
    // As before: the word after a flag that takes a value is its value, whatever it looks like.
    expect(Cli.parse(["--http-port", "--sandbox"])).toEqual({
      _tag: "Invalid",
      message: "--http-port takes a port from 0 to 65535",
    })
  })
})
