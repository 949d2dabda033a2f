import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, formatPrettyLine, redactSecrets, setLineOwner } from "../src/logging.js";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => lines.join("") };
}

describe("createLogger", () => {
  it("writes JSON lines and redacts tokens, passwords and Authorization headers", () => {
    const out = capture();
    const log = createLogger({ level: "debug", destination: out.stream });
    log.debug({ token: "tok-AAAA", password: "pw-BBBB", user: { password: "pw-CCCC" } }, "hello");
    log.info({ headers: { authorization: "Bearer tok-DDDD" }, req: { token: "tok-EEEE" } }, "req");
    const text = out.text();
    for (const s of ["tok-AAAA", "pw-BBBB", "pw-CCCC", "tok-DDDD", "tok-EEEE"]) expect(text).not.toContain(s);
    const first = JSON.parse(text.split("\n")[0]!) as Record<string, unknown>;
    expect(first["msg"]).toBe("hello");
    expect(first["token"]).toBe("[redacted]");
  });

  it("respects the level", () => {
    const out = capture();
    const log = createLogger({ level: "warn", destination: out.stream });
    log.info("quiet");
    log.warn("loud");
    expect(out.text()).not.toContain("quiet");
    expect(out.text()).toContain("loud");
  });

  it("pretty format prints one readable line per event, still redacted", () => {
    const out = capture();
    const log = createLogger({ level: "info", format: "pretty", destination: out.stream });
    log.info({ step: "mapping.create:jane", password: "pw-FFFF" }, "step done");
    const text = out.text();
    expect(text).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}step done step=mapping.create:jane password=\[redacted\]\n$/,
    );
  });
});

describe("a log line and the progress bar on one terminal", () => {
  it.each(["json", "pretty"] as const)(
    "%s: the bar is cleared before each line and redrawn after it",
    (format) => {
      let screen = "";
      const tty = Object.assign(capture().stream, { isTTY: true });
      tty._write = (chunk: Buffer | string, _enc: BufferEncoding, done: () => void) => {
        screen += chunk.toString();
        done();
      };
      setLineOwner({ clear: () => void (screen += "<clear>"), redraw: () => void (screen += "<bar>") });
      try {
        createLogger({ level: "info", format, destination: tty }).warn("interrupted");
      } finally {
        setLineOwner(undefined);
      }
      expect(screen).toMatch(/^<clear>.*interrupted.*\n<bar>$/);
    },
  );
});

describe("formatPrettyLine", () => {
  it("passes non-JSON through", () => {
    expect(formatPrettyLine("plain")).toBe("plain\n");
  });
});

describe("redactSecrets", () => {
  it("replaces each secret, also URL-encoded", () => {
    expect(redactSecrets("a p@ss+word b p%40ss%2Bword", ["p@ss+word"])).toBe("a [redacted] b [redacted]");
  });
  it("ignores trivially short values", () => {
    expect(redactSecrets("abc", ["a"])).toBe("abc");
  });
});
