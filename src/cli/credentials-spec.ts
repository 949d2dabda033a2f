/**
 * `usersync credentials`'s entry in the table of commands (options.ts): `reset EMAIL`, a fresh
 * password for one built-in login, written like generated passwords (commands/credentials.ts).
 */
interface Spec {
  type: "string" | "boolean";
  multiple?: boolean;
  short?: string;
  value?: string;
  help: string;
}

export function credentialsSpec<G>(o: { planOptions: { target: Spec }; globals: G; footer: string }) {
  return {
    summary: "reset one built-in user's password (written to the credentials file, never shown)",
    usage: "usersync credentials reset EMAIL [options]",
    description:
      "Issues a fresh password for one existing built-in login. It is appended to the credentials\n" +
      "file (and written to the person's file with --credentials-dir) and flushed before the change\n" +
      "is sent; it is never printed. The display name is kept. A person who signs in through an\n" +
      "identity provider has no login here to reset (exit 4, nothing sent).",
    options: {
      "credentials-file": {
        type: "string",
        value: "F",
        help: "where the new password is appended (mode 0600; default output.credentialsFile)",
      },
      "credentials-dir": {
        type: "string",
        value: "DIR",
        help: "also write it to DIR/<email>.txt (mode 0600; default output.credentialsDir)",
      },
      target: o.planOptions.target,
    },
    globals: o.globals,
    positional: { name: "reset EMAIL", max: 2 },
    footer: o.footer,
  } as const;
}
