/**
 * Characters a value may not hold (docs/desired-state.md, "Control, invisible and direction
 * characters"). The byte check refuses control bytes in the file; the same characters written as
 * escapes (`"a\0b"`, `"\x1b[2J"`, `"\u0085"` in YAML or JSON syntax) or read from a directory
 * reach the values, and are refused here the same way. Keys and logins (an email, a `sub`) may
 * hold nothing invisible either: one that looks like another login but is not would be created
 * beside it, or fail to match the account it names. Names shown to people are only warned about.
 */
import type { ProblemList, Where } from "./problems.js";

/** C0 controls, DEL and C1 controls, except tab and line breaks (which a text file holds too). */
const CONTROL = /(?![\t\n\r])\p{Cc}/u;
/** In a key, tab and line breaks too. */
const ANY_CONTROL = /\p{Cc}/u;

/**
 * What a key or login may not hold: every control character (tab and line breaks too), every
 * default-ignorable character (zero-width space and joiners, soft hyphen, word joiner, byte order
 * mark, variation selectors, fillers, tag characters), the bidirectional controls, and the line
 * and paragraph separators.
 */
const INVISIBLE = /[\p{Cc}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u2028\u2029]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, "gu");

/**
 * What a name is warned about: characters that reorder how text is shown (bidirectional
 * overrides, embeddings, isolates and marks) or that are invisible and serve no name. Joiners and
 * variation selectors are left alone: emoji and several scripts (Persian, Indic) need them.
 */
const SUSPECT_IN_NAME = /[\p{Bidi_Control}\u200B\u2060\uFEFF]/u;

const NAMES: Record<number, string> = {
  0x00: "NUL",
  0x09: "tab",
  0x0a: "line feed",
  0x0d: "carriage return",
  0x1b: "escape",
  0x7f: "delete",
  0x85: "next line",
  0xad: "soft hyphen",
  0x61c: "Arabic letter mark",
  0x200b: "zero width space",
  0x200c: "zero width non-joiner",
  0x200d: "zero width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x2028: "line separator",
  0x2029: "paragraph separator",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2060: "word joiner",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0xfeff: "zero width no-break space (byte order mark)",
};

const codePoint = (c: string): string => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** `U+202E (right-to-left override)` */
function describe(c: string): string {
  const name = NAMES[c.codePointAt(0)!];
  return name ? `${codePoint(c)} (${name})` : codePoint(c);
}

/** The value with every invisible or control character written as `<U+200B>`, safe to print. */
export function visible(value: string): string {
  return value.replace(INVISIBLE_ALL, (c) => `<${codePoint(c)}>`);
}

/**
 * How a value is screened: a key or login (nothing invisible), a name shown to people (warned
 * about what hides or reorders it), other text, or a secret (never shown in the message). All of
 * them refuse control characters.
 */
export type CharacterKind = "key" | "name" | "text" | "secret";

/** Reports the characters `value` may not hold; true when it is refused (an error, not a warning). */
export function screenValue(o: {
  value: string;
  kind: CharacterKind;
  where: Where;
  problems: ProblemList;
}): boolean {
  const { value, kind, where, problems } = o;
  const shown = kind === "secret" ? "" : `"${visible(value)}" `;
  const control = (kind === "key" ? ANY_CONTROL : CONTROL).exec(value)?.[0];
  if (control !== undefined) {
    problems.error(
      where,
      "control-character",
      `${shown}holds the control character ${describe(control)}: remove it (in YAML an escape such as "\\0" or "\\x1b" in a quoted value writes one)`,
    );
    return true;
  }
  if (kind === "key") {
    const c = INVISIBLE.exec(value)?.[0];
    if (c === undefined) return false;
    problems.error(
      where,
      "invisible-character",
      `${shown}holds ${describe(c)}, which cannot be seen or changes the direction of text: a login or key with it looks like another one and is not; type the value again`,
    );
    return true;
  }
  const c = kind === "name" ? SUSPECT_IN_NAME.exec(value)?.[0] : undefined;
  if (c !== undefined)
    problems.warn(
      where,
      "invisible-character",
      `${shown}holds ${describe(c)}, which cannot be seen or reorders the text where the name is shown; it is sent as written: type the value again if you did not mean it`,
    );
  return false;
}

/**
 * Screens the text fields of a record that are set, each by its kind; returns the fields refused.
 * Fields with their own character rule (ids, group ids, identity, state) are not listed: those
 * rules refuse anything invisible, and their messages show it with `visible`.
 */
export function screenRecord<F extends string>(o: {
  text: Partial<Record<F, string>>;
  kinds: Partial<Record<F, CharacterKind>>;
  where: (field: F) => Where;
  problems: ProblemList;
}): ReadonlySet<F> {
  let refused: Set<F> | undefined;
  for (const [field, kind] of entriesOf(o.kinds)) {
    const value = o.text[field]?.trim();
    if (kind === "name" && value !== undefined && lostAccent(value, o.where(field), o.problems))
      (refused ??= new Set()).add(field);
    // INVISIBLE holds every character screenValue reports, and nearly no value has one: the
    // value's place (an object) is built only for those. Objects built for every field of a
    // million rows were kept by V8 in the old generation, 250 MB of garbage (issue 33).
    if (value === undefined || !INVISIBLE.test(value)) continue;
    if (screenValue({ value, kind, where: o.where(field), problems: o.problems }))
      (refused ??= new Set()).add(field);
  }
  return refused ?? NOTHING_REFUSED;
}

const NOTHING_REFUSED: ReadonlySet<never> = new Set();

/** A `?` against a letter: `?ukasz Wi?niewski`, what a save to an 8-bit code page made of `Łukasz Wiśniewski`. */
const REPLACED = /\p{L}\?\p{L}|(?:^|\s)\?\p{L}/u;

/**
 * A name whose accents a tool replaced by `?` (saved as Windows-1252 or ASCII on the way): refused
 * (exit 4), since renaming a person to `?ukasz` is never meant. The file is to be saved as UTF-8.
 */
function lostAccent(value: string, where: Where, problems: ProblemList): boolean {
  if (!value.includes("?") || !REPLACED.test(value)) return false;
  problems.error(
    where,
    "lost-characters",
    `"${visible(value)}" has a "?" where a letter belongs: its accented letters were replaced when the file was saved in another encoding (Windows-1252, ASCII); export or save it again as "CSV UTF-8" from the original`,
  );
  return true;
}
const kindEntries = new WeakMap<object, ReadonlyArray<[string, CharacterKind]>>();

/** `Object.entries` of a record's kinds, once per table rather than once per record. */
function entriesOf<F extends string>(
  kinds: Partial<Record<F, CharacterKind>>,
): ReadonlyArray<[F, CharacterKind]> {
  let entries = kindEntries.get(kinds);
  if (entries === undefined) {
    entries = Object.entries(kinds) as Array<[string, CharacterKind]>;
    kindEntries.set(kinds, entries);
  }
  return entries as ReadonlyArray<[F, CharacterKind]>;
}
