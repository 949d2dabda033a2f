/** The commands, in the order `usersync --help` lists them (options.ts has each one's spec). */
export const COMMANDS = [
  "plan",
  "apply",
  "review",
  "campaign",
  "credentials",
  "validate",
  "export",
  "emulator",
  "demo",
] as const;
