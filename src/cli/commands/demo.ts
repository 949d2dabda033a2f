/**
 * `usersync demo` (what `npm start` runs): plans and applies fixtures/demo/ against an embedded
 * emulator seeded with a small organization, then plans again to show it converged. Uses the
 * same pipeline as `plan` and `apply`; generated passwords go to a private temporary folder.
 */
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadSeedFile } from "../../emulator/index.js";
import { InternalError } from "../../errors.js";
import { isEmptyPlan } from "../../plan/index.js";
import { renderPlan } from "../../report/index.js";
import type { ParsedCommand } from "../args.js";
import { useColor, type Io } from "../io.js";
import { loadDesired, loadRuntime, planAgainstService } from "../pipeline.js";
import { connect } from "../target.js";
import { executePlan, preparePasswords } from "../execute.js";
import { usersyncCommand } from "../invocation.js";

/** The folder holding package.json, from this file in src/ or dist/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new InternalError({ message: "cannot find the usersync package folder" });
    dir = up;
  }
  return dir;
}

export async function runDemo({ values }: ParsedCommand, io: Io): Promise<number> {
  const demoDir = join(packageRoot(), "fixtures", "demo");
  // The demo's own config; --log-level and --log-format win over its logging section.
  const runtime = await loadRuntime(
    { ...values, config: join(demoDir, "usersync.yaml") },
    { ...io, cwd: demoDir },
  );
  const color = useColor(io.stdout, io.env);
  const say = (text: string): void => void io.stdout.write(`\n== ${text}\n\n`);
  const desired = await loadDesired(runtime);
  const connection = await connect({
    config: runtime.config,
    logger: runtime.logger,
    embeddedSeed: await loadSeedFile(join(demoDir, "organization.yaml")),
  });
  try {
    say(
      `1/3 usersync plan: ${desired.users.length} users in ${desired.files.join(", ")} against the demo organization`,
    );
    const first = await planAgainstService(runtime, { values: {}, desired, connection });
    io.stdout.write(renderPlan(first.plan, { format: "text", dryRun: true, color }));

    const credentialsFile = join(await mkdtemp(join(tmpdir(), "usersync-demo-")), "credentials.csv");
    say("2/3 usersync apply --yes");
    const passwords = await preparePasswords(runtime, {
      plan: first.plan,
      client: connection.client,
      desired,
      outputs: { credentials: { path: credentialsFile, name: "the demo's credentials file" } },
    });
    const { exitCode } = await executePlan(runtime, {
      plan: first.plan,
      client: connection.client,
      desired,
      passwords,
      outputs: {},
    });

    say("3/3 usersync plan again: a run after a successful one changes nothing");
    const second = await planAgainstService(runtime, { values: {}, desired, connection });
    io.stdout.write(renderPlan(second.plan, { format: "text", dryRun: true, color }));
    if (exitCode === 0 && isEmptyPlan(second.plan)) {
      io.stdout.write(
        `\nThe demo organization converged. Next: ${usersyncCommand()} emulator, then ${usersyncCommand()} plan --base-url <its URL> (see README).\n`,
      );
    }
    return exitCode !== 0 ? exitCode : isEmptyPlan(second.plan) ? 0 : 1;
  } finally {
    await connection.close();
  }
}
