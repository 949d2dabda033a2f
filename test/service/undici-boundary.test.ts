/** DESIGN section 4: one client module over undici. Nothing else in src/ may import it. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

describe("undici boundary", () => {
  it("only src/service/transport.ts imports undici", () => {
    const importers = sources("src").filter((f) =>
      /from\s+["']undici["']|import\(\s*["']undici["']\s*\)|require\(\s*["']undici["']/.test(
        readFileSync(f, "utf8"),
      ),
    );
    expect(importers).toEqual([join("src", "service", "transport.ts")]);
  });
});
