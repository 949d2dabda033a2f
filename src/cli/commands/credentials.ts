/**
 * `usersync credentials reset EMAIL`: a fresh password for one existing built-in login. The
 * password is drawn and written the safe way of generated passwords (appended to the credentials
 * file, and to the person's file with --credentials-dir; flushed) before the update is sent; it is
 * never printed. The update sends the login's current display name, so a reset never changes it.
 */
import { ConfigError, ExitCode } from "../../errors.js";
import { createPasswordProvider } from "../../outputs/index.js";
import { personFileName } from "../../outputs/person-credentials.js";
import type { ParsedCommand } from "../args.js";
import type { Io } from "../io.js";
import { resolveOutputs } from "../output-paths.js";
import type { Runtime } from "../pipeline.js";
import { runForTargets, type FatalWriter } from "../run-targets.js";
import { connect } from "../target.js";
import { join } from "node:path";

export async function runCredentials(command: ParsedCommand, io: Io, fatal: FatalWriter): Promise<number> {
  const [action, email, ...rest] = command.positionals;
  if (action !== "reset" || email === undefined || email.trim() === "" || rest.length > 0) {
    throw new ConfigError({
      message: `usersync credentials needs: reset EMAIL (one e-mail)${action === undefined ? "" : `, got "${command.positionals.join(" ")}"`}. See usersync credentials --help.`,
    });
  }
  return runForTargets(command, io, (runtime) => resetPassword(command, runtime, email.trim()), fatal, {
    slices: false,
  });
}

async function resetPassword(command: ParsedCommand, runtime: Runtime, email: string): Promise<number> {
  const outputs = resolveOutputs(command.values, runtime.config, ["credentials", "credentialsDir"]);
  const connection = await connect({ config: runtime.config, logger: runtime.logger });
  try {
    const login = await connection.client.getIdpUser(email);
    if (login === undefined) {
      throw new ConfigError({
        message: `${email} has no built-in login in ${connection.label}: nothing to reset (people who sign in through an identity provider change their password there); nothing was sent`,
      });
    }
    const passwords = await createPasswordProvider({
      source: "generate",
      ...(outputs.credentials ? { credentialsFile: outputs.credentials.path } : {}),
      ...(outputs.credentialsDir ? { credentialsDir: outputs.credentialsDir.path } : {}),
    });
    try {
      const password = await passwords.passwordFor(login.email);
      if (password === undefined) throw new Error("no password was drawn");
      await connection.client.updateIdpUser({ email: login.email, displayName: login.displayName, password });
    } finally {
      await passwords.close();
    }
    const dir = outputs.credentialsDir
      ? ` and ${join(outputs.credentialsDir.path, personFileName(login.email))}`
      : "";
    runtime.io.stdout.write(
      `New password for ${login.email} (display name "${login.displayName}" kept) written to ${outputs.credentials?.path ?? ""} (mode 0600)${dir}; the old one no longer signs in.\n`,
    );
    return ExitCode.ok;
  } finally {
    await connection.close();
  }
}
