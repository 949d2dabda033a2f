import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import { call, groupDoc, userDoc } from "./http.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-emu-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("persistence", () => {
  it("writes every write atomically and loads it back in preference to the seed", async () => {
    const persistPath = join(dir, "store.json");
    const emu = await startEmulator({ persistPath, seed: { groups: [{ id: "g", name: "G" }] } });
    await call(emu, "POST", "/api/v1/auth/users", {
      body: { email: "a@b.c", displayName: "A", password: "pw-not-saved" },
    });
    // Many concurrent writes right before close: none may be lost.
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(emu, "POST", "/api/v1/entities/users", { body: userDoc(`u${i}`, {}, ["g"]) }),
      ),
    );
    const before = emu.state();
    await emu.close();

    const text = await readFile(persistPath, "utf8");
    expect(text).not.toContain("pw-not-saved");
    expect((await readdir(dir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    const again = await startEmulator({ persistPath, seed: { groups: [{ id: "other" }] } });
    try {
      const { idpUsers, ...rest } = again.state();
      expect(rest).toEqual({ mappings: before.mappings, groups: before.groups });
      expect(idpUsers).toEqual(before.idpUsers.map(({ password: _p, ...u }) => u));
      // The authenticationId counter survives a restart: a new user gets a fresh id.
      const next = await call(again, "POST", "/api/v1/auth/users", {
        body: { email: "d@e.f", displayName: "D" },
      });
      expect(next.json.authenticationId).not.toBe(idpUsers[0]?.authenticationId);
      await call(again, "POST", "/api/v1/entities/userGroups", { body: groupDoc("late") });
    } finally {
      await again.close();
    }
    const saved = JSON.parse(await readFile(persistPath, "utf8"));
    expect(saved.groups.map((g: { id: string }) => g.id)).toEqual(["g", "late"]);
    expect(saved.idpUsers).toHaveLength(2);
  });

  it("writes a seeded store at start and refuses a corrupt store file with its path", async () => {
    const persistPath = join(dir, "seeded.json");
    const emu = await startEmulator({
      persistPath,
      seed: { idpUsers: [{ email: "s@e.ed", displayName: "S" }] },
    });
    await emu.close();
    expect(JSON.parse(await readFile(persistPath, "utf8")).idpUsers[0].email).toBe("s@e.ed");
    await writeFile(persistPath, "{ broken");
    await expect(startEmulator({ persistPath })).rejects.toThrow(persistPath);
    await writeFile(persistPath, JSON.stringify({ formatVersion: 99, mappings: [] }));
    await expect(startEmulator({ persistPath })).rejects.toThrow(/format 99 is not supported/);
  });
});

describe("seeds", () => {
  it("loads JSON and YAML seed files", async () => {
    const yamlPath = join(dir, "seed.yaml");
    await writeFile(
      yamlPath,
      [
        "idpUsers:",
        "  - { email: admin@example.com, displayName: Admin }",
        "groups:",
        "  - { id: g1, name: One }",
        "mappings:",
        "  - { id: admin, groups: [g1] }",
      ].join("\n"),
    );
    const jsonPath = join(dir, "seed.json");
    await writeFile(jsonPath, JSON.stringify({ groups: [{ id: "g1" }] }));
    expect(await loadSeedFile(jsonPath)).toEqual({ groups: [{ id: "g1" }] });
    const emu = await startEmulator({ seed: await loadSeedFile(yamlPath) });
    try {
      const s = emu.state();
      expect(s.mappings).toEqual([{ id: "admin", groups: ["g1"] }]);
      expect(s.idpUsers[0]?.authenticationId).toMatch(/^[A-Za-z0-9_-]{10,}$/);
    } finally {
      await emu.close();
    }
  });

  it("rejects seed files of the wrong shape and seeds with dangling references", async () => {
    const bad = join(dir, "bad.json");
    await writeFile(bad, JSON.stringify({ mappings: { id: "x" } }));
    await expect(loadSeedFile(bad)).rejects.toThrow(/mappings must be a list/);
    await expect(startEmulator({ seed: { mappings: [{ id: "m", groups: ["ghost"] }] } })).rejects.toThrow(
      /m references unknown group ghost/,
    );
    await expect(
      startEmulator({
        seed: {
          groups: [
            { id: "a", parents: ["b"] },
            { id: "b", parents: ["a"] },
          ],
        },
      }),
    ).rejects.toThrow(/cycle/);
  });
});
