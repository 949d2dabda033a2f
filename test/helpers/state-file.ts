/**
 * The state file (`state.file`) as the e2e tests read and age it: the JSON on disk, read as a
 * black box (src/state reads it in the product). Ageing it is how a test lets days pass: every
 * date in it moves back, as if the runs that wrote them had been that long ago.
 */
import { readFile, writeFile } from "node:fs/promises";

export interface StateFile {
  fullRunAt?: string;
  people: Record<string, { since: string; reason: string }>;
}

export const readStateFile = async (file: string): Promise<StateFile> =>
  JSON.parse(await readFile(file, "utf8")) as StateFile;

/** Moves every date of the state file back by `hours`; the rest of it (formatVersion) stays. */
export async function ageStateFile(file: string, hours: number): Promise<void> {
  const state = await readStateFile(file);
  const back = (iso: string): string => new Date(Date.parse(iso) - hours * 3_600_000).toISOString();
  for (const p of Object.values(state.people)) p.since = back(p.since);
  if (state.fullRunAt !== undefined) state.fullRunAt = back(state.fullRunAt);
  await writeFile(file, JSON.stringify(state));
}
