/**
 * `source.changes.mode` with a file source: a file has no change feed, so the run reads it whole
 * and says once that the setting has no effect (docs/sources.md, "Changes-only runs").
 */
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { changesInput } from "../../src/cli/changes-file.js";

describe("changesInput", () => {
  it("a file source: nothing kept is read, and one no-effect notice", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    const config = configSchema.parse({
      source: { type: "file", desired: "people.yaml", changes: { mode: "changes" } },
      state: { file: "/nonexistent/state.json" },
    });
    expect(await changesInput(config, logger)).toBeUndefined();
    const notices = lines.map((l) => JSON.parse(l) as { notice?: string; msg: string });
    expect(notices).toEqual([
      expect.objectContaining({
        notice: "no-effect",
        msg: expect.stringMatching(/^source\.changes\.mode has no effect with source\.type file/),
      }),
    ]);
  });
});
