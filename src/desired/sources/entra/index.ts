/**
 * `source.type: entra` (docs/entra.md): people and groups read straight from Microsoft Entra ID
 * through Microsoft Graph, into the same desired state a file gives, with the evidence that the
 * read is whole. Token first (a setup mistake stops before any Graph read), then the groups each
 * rule picks, then every picked group's members, concurrently within `source.entra.concurrency`.
 * One failed group fails the read: nothing is planned from a part.
 */
import type { Config } from "../../../config/schema.js";
import type { EntraConfig } from "./schema.js";
import { ConfigError } from "../../../errors.js";
import { checkGroups, checkUsers } from "../../checks.js";
import { ProblemList, sortProblems } from "../../problems.js";
import type { RecordContext } from "../../records.js";
import type { DesiredGroup, DesiredUser } from "../../types.js";
import {
  SkipCounter,
  type ReadTally,
  type SkippedCount,
  type SourceContext,
  type SourceReader,
  type SourceResult,
} from "../contract.js";
import { entraCredential, graphToken, readCa } from "./credential.js";
import type { DirectoryHttp } from "../directory-http.js";
import { graphHttp } from "./graph.js";
import { directoryParents, ruleScope, toDesiredGroup } from "./groups.js";
import { pickGroups, readMembers, type GroupMembers } from "./members.js";
import type { PartialMembers } from "./picture.js";
import { entraSignIn } from "./sign-in.js";
import { toDesiredUser, type GraphUserItem, type UserMapping } from "./users.js";
import { limitedUserInfo, tokenProvider } from "./tokens.js";

export function openEntraSource(config: Config, ctx: SourceContext): SourceReader {
  return {
    read: () => {
      const entra = config.source.entra;
      if (entra === undefined)
        throw new ConfigError({
          message:
            "source.type is entra but source.entra is not set: see docs/entra.md and config.example.yaml.",
        });
      return readEntra(entra, ctx);
    },
  };
}

/** Where the state came from, for messages and the plan: never a secret. */
export function entraSourceName(config: EntraConfig): string {
  return `Entra ID tenant ${config.tenant}`;
}

/** Every group's members, or the first failure once all have stopped (nothing runs after close). */
async function readAllMembers(run: () => Promise<GroupMembers>[]): Promise<GroupMembers[]> {
  const settled = await Promise.allSettled(run());
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<GroupMembers>).value);
}

/** The token first (a setup mistake stops before any Graph read), then Graph's client. */
export async function connectGraph(config: EntraConfig, ctx: SourceContext): Promise<DirectoryHttp> {
  const ca = await readCa(config);
  const credential = await entraCredential(config, ctx.env, ca);
  // A fresh token after a 401 mid-read: a new credential, so MSAL's cache cannot give the refused one back.
  const token = tokenProvider(async (fresh) =>
    graphToken(fresh ? await entraCredential(config, ctx.env, ca) : credential, config, ca),
  );
  await token();
  return graphHttp({
    config,
    ca,
    authorize: async () => `Bearer ${await token()}`,
    renew: (refused) => token.renew(refused.replace(/^Bearer /, "")),
    logger: ctx.logger,
  });
}

/** Every picked group and its members, proved whole; `nestedAlways` for a changes-only run. */
export async function readPicked(
  http: DirectoryHttp,
  config: EntraConfig,
  reads: ReadTally[],
  nestedAlways = false,
): Promise<GroupMembers[]> {
  const picked = await pickGroups(http, config, reads);
  const members = await readAllMembers(() =>
    picked.map((p) => readMembers(http, config, p, reads, nestedAlways)),
  );
  limitedUserInfo(members, config);
  return members;
}

async function readEntra(config: EntraConfig, ctx: SourceContext): Promise<SourceResult> {
  const http = await connectGraph(config, ctx);
  const reads: ReadTally[] = [];
  try {
    return build(config, ctx, await readPicked(http, config, reads), reads);
  } finally {
    await http.close();
  }
}

/** The desired state of the members read; `partial`: of the members listed only (BuildInput.only). */
export function build(
  config: EntraConfig,
  ctx: SourceContext,
  members: GroupMembers[],
  reads: ReadTally[],
  partial?: PartialMembers,
): SourceResult {
  const source = entraSourceName(config);
  const problems = new ProblemList();
  const rc: RecordContext = {
    problems,
    defaultIdentity: ctx.defaultIdentity,
    passwordWarned: { value: false },
  };
  const skipped = new SkipCounter();
  const groups: DesiredGroup[] = [];
  for (const m of members) {
    const desired = toDesiredGroup(m.picked, rc, source);
    if (desired) {
      m.picked.desired = desired;
      groups.push(desired);
    }
  }
  directoryParents(
    members.map((m) => m.picked),
    new Map(members.map((m) => [m.picked.group.id, m.nested])),
  );
  const { users, graphOf } = desiredUsers(members, partial, { config, ctx: rc, skipped, source });
  checkUsers(users, problems);
  checkGroups(groups, users, problems);
  return {
    state: { users, groups, files: [source] },
    ...(config.attributes.authenticationId === "auto" ? { signIn: entraSignIn(graphOf, source) } : {}),
    problems: sortProblems(problems.items, [source]),
    evidence: {
      kind: "entra",
      source: `${source} (${config.graphUrl})`,
      scope: config.groups.map(ruleScope),
      reads,
      skipped: [...skipped.list(), ...otherMembers(members)],
      groupSizes: Object.fromEntries(
        members.map((m) => [
          `entra:${m.picked.group.id}`,
          partial?.sizes.get(m.picked.group.id) ?? m.users.length,
        ]),
      ),
    },
  };
}

/** The people of the picked groups, each once with all their groups (or those `partial` lists). */
function desiredUsers(members: GroupMembers[], partial: PartialMembers | undefined, m: UserMapping) {
  // A person in many picked groups is read once per group and becomes one user in all of them.
  const people = new Map<string, { item: GraphUserItem; groups: Set<string> }>();
  for (const g of members)
    for (const item of g.users) {
      const entry = people.get(item.id) ?? people.set(item.id, { item, groups: new Set() }).get(item.id)!;
      if (g.picked.desired) entry.groups.add(g.picked.desired.id);
    }
  const users: DesiredUser[] = [];
  const graphOf = new Map<string, GraphUserItem>();
  let line = 0;
  for (const id of [...people.keys()].sort() /* by id: as `<` compares, no call per comparison */) {
    const { item, groups: ids } = people.get(id)!;
    line = partial?.lineOf.get(id) ?? line + 1;
    const user = toDesiredUser(item, [...ids].sort(), line, m);
    if (user) {
      users.push(user);
      graphOf.set(user.id, item);
    }
  }
  return { users, graphOf };
}

/** Service principals, devices and contacts among the members: counted per group, never silent. */
function otherMembers(members: GroupMembers[]): SkippedCount[] {
  const withOthers = members.filter((m) => m.others > 0);
  if (withOthers.length === 0) return [];
  const nested = withOthers.some((m) => !m.nestedRead) ? "nested groups, " : "";
  return [
    {
      reason: `members that are not people (${nested}service principals, devices, contacts)`,
      count: withOthers.reduce((n, m) => n + m.others, 0),
      sample: withOthers
        .slice(0, 5)
        .map((m) => `${m.others} in ${String(m.picked.group["displayName"] ?? m.picked.group.id)}`),
    },
  ];
}
