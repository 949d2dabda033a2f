/**
 * `usersync emulator --directory KIND`: the options of the directory stand-ins served beside the
 * service (src/emulator/stand-ins.ts), a part of the emulator command's option table (options.ts).
 */
/** The emulator's directory options; their shape is options.ts's OptionSpec (checked where they are spread). */
export const DIRECTORY_STAND_IN_OPTIONS = {
  directory: {
    type: "string",
    value: "KIND",
    help: "also serve a directory stand-in to rehearse a source: graph (an Entra\ntenant, HTTPS with a CA made for the run), okta or google (a Google\nWorkspace customer); prints the source: block that reads it and\nwrites a config with it (docs/emulator.md)",
  },
  "directory-seed": {
    type: "string",
    value: "FILE",
    help: "its people and groups (YAML, the directory's own shapes; see\nfixtures/stand-ins/); default: 50 made-up people in 3 groups",
  },
  "directory-port": { type: "string", value: "N", help: "its port (default 0: a free one)" },
  "directory-files": {
    type: "string",
    value: "DIR",
    help: "where its key, secret and CA, and the rehearsal config rehearsal.yaml,\nare written (default .usersync/stand-in)",
  },
} as const;
