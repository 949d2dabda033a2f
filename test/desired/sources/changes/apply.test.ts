/**
 * Changes applied to a picture (src/desired/sources/changes/apply.ts): each row a picture, a batch
 * and what a whole read of the directory after those changes would read, written out by hand.
 */
import { describe, expect, it } from "vitest";
import { applyChanges, membersOf, nestedBelow } from "../../../../src/desired/sources/changes/apply.js";
import type {
  DirectoryChange,
  Picture,
  PicturedGroup,
  PicturedPerson,
} from "../../../../src/desired/sources/changes/feed.js";

const person = (id: string, status: PicturedPerson["status"] = "enabled"): PicturedPerson => ({
  id,
  status,
  attributes: { mail: `${id}@example.com` },
});
const group = (id: string, o: Partial<PicturedGroup> = {}): PicturedGroup => ({
  id,
  name: id,
  attributes: { displayName: id },
  people: [],
  groups: [],
  ...o,
});

/** Sales (picked) holds ann and the nested group east; east holds bob and the nested group inner; inner holds cy. */
const base: Picture = {
  formatVersion: 1,
  kind: "entra",
  configDigest: "d1",
  readAt: "2026-11-28T00:00:00.000Z",
  groups: [
    group("east", { people: ["bob"], groups: ["inner"] }),
    group("inner", { people: ["cy"] }),
    group("sales", { rule: 0, people: ["ann"], groups: ["east"] }),
    group("support", { rule: 1, people: ["dee"] }),
  ],
  people: [person("ann"), person("bob"), person("cy"), person("dee")],
};

const AT = "2026-11-28T01:00:00.000Z";

function members(changes: DirectoryChange[]): Record<string, string[]> | { fallback: string } {
  const r = applyChanges(base, changes, AT);
  return "fallback" in r ? { fallback: r.fallback } : Object.fromEntries(membersOf(r.picture));
}

describe("applyChanges: members at any depth after a batch", () => {
  const rows: [string, DirectoryChange[], Record<string, string[]> | { fallback: string }][] = [
    ["nothing changed", [], { sales: ["ann", "bob", "cy"], support: ["dee"] }],
    [
      "a person added to a group nested two deep reaches the picked group above",
      [{ type: "member-added", group: "inner", member: "eve", memberKind: "person", person: person("eve") }],
      { sales: ["ann", "bob", "cy", "eve"], support: ["dee"] },
    ],
    [
      "a person removed from a nested group leaves the picked group",
      [{ type: "member-removed", group: "east", member: "bob", memberKind: "person" }],
      { sales: ["ann", "cy"], support: ["dee"] },
    ],
    [
      "a nested group unnested takes its people with it",
      [{ type: "member-removed", group: "sales", member: "east", memberKind: "group" }],
      { sales: ["ann"], support: ["dee"] },
    ],
    [
      "a known group nested into another picked group brings its people",
      [{ type: "member-added", group: "support", member: "inner", memberKind: "group" }],
      { sales: ["ann", "bob", "cy"], support: ["cy", "dee"] },
    ],
    [
      "a person deleted for good leaves every group",
      [{ type: "person-removed", id: "cy" }],
      { sales: ["ann", "bob"], support: ["dee"] },
    ],
    [
      "a group outside the picture changing reaches nobody",
      [{ type: "member-added", group: "elsewhere", member: "zed", memberKind: "person" }],
      { sales: ["ann", "bob", "cy"], support: ["dee"] },
    ],
    [
      "a group read again whole replaces what was kept",
      [{ type: "group-read", group: group("support", { people: ["ann", "fay"] }), people: [person("fay")] }],
      { sales: ["ann", "bob", "cy"], support: ["ann", "fay"] },
    ],
    [
      "an unknown group nested in: its members are unknown, read whole",
      [{ type: "member-added", group: "east", member: "west", memberKind: "group" }],
      { fallback: "groups-changed" },
    ],
    [
      "an unknown person added without attributes: read whole",
      [{ type: "member-added", group: "sales", member: "gus", memberKind: "person" }],
      { fallback: "groups-changed" },
    ],
    [
      "a picked group deleted: read whole",
      [{ type: "group-removed", id: "sales" }],
      { fallback: "groups-changed" },
    ],
    [
      "a nested group deleted: its people leave",
      [{ type: "group-removed", id: "inner" }],
      { sales: ["ann", "bob"], support: ["dee"] },
    ],
  ];
  it.each(rows)("%s", (_, changes, expected) => {
    expect(members(changes)).toEqual(expected);
  });
});

describe("applyChanges: people and groups kept", () => {
  it("a disabled person stays, with their status; attributes merge; the input is untouched", () => {
    const r = applyChanges(
      base,
      [
        { type: "person-status", id: "bob", status: "disabled" },
        {
          type: "person-upserted",
          person: { id: "ann", status: "enabled", attributes: { givenName: "Ann" } },
        },
      ],
      AT,
    );
    if (!("picture" in r)) throw new Error("fell back");
    expect(r.picture.people.find((p) => p.id === "bob")?.status).toBe("disabled");
    expect(r.picture.people.find((p) => p.id === "ann")?.attributes).toEqual({
      mail: "ann@example.com",
      givenName: "Ann",
    });
    expect(r.picture.changedAt).toBe(AT);
    expect(base.people.find((p) => p.id === "bob")?.status).toBe("enabled");
  });

  it("people and groups no picked group reaches leave the picture", () => {
    const r = applyChanges(
      base,
      [{ type: "member-removed", group: "sales", member: "east", memberKind: "group" }],
      AT,
    );
    if (!("picture" in r)) throw new Error("fell back");
    expect(r.picture.groups.map((g) => g.id)).toEqual(["sales", "support"]);
    expect(r.picture.people.map((p) => p.id)).toEqual(["ann", "dee"]);
  });

  it("the picture stays sorted by id: a newcomer whose id sorts first, and one that sorts last", () => {
    const r = applyChanges(
      base,
      [
        {
          type: "member-added",
          group: "support",
          member: "zed",
          memberKind: "person",
          person: person("zed"),
        },
        {
          type: "member-added",
          group: "support",
          member: "aaron",
          memberKind: "person",
          person: person("aaron"),
        },
        { type: "person-status", id: "bob", status: "disabled" },
      ],
      AT,
    );
    if (!("picture" in r)) throw new Error("fell back");
    expect(r.picture.people.map((p) => p.id)).toEqual(["aaron", "ann", "bob", "cy", "dee", "zed"]);
    expect(r.picture.groups.map((g) => g.id)).toEqual(["east", "inner", "sales", "support"]);
  });

  it("a rename keeps the group's members and rule", () => {
    const r = applyChanges(
      base,
      [{ type: "group-updated", id: "sales", name: "Sales EMEA", attributes: { displayName: "Sales EMEA" } }],
      AT,
    );
    if (!("picture" in r)) throw new Error("fell back");
    expect(r.picture.groups.find((g) => g.id === "sales")).toMatchObject({ name: "Sales EMEA", rule: 0 });
  });

  it("nestedBelow gives every group under a picked group, cycles included", () => {
    const cyclic: Picture = {
      ...base,
      groups: [...base.groups.filter((g) => g.id !== "inner"), group("inner", { groups: ["sales"] })],
    };
    expect(Object.fromEntries([...nestedBelow(cyclic)].map(([k, v]) => [k, [...v].sort()]))).toEqual({
      sales: ["east", "inner"],
      support: [],
    });
  });
});
