/**
 * The files a campaign step names, each as it is read or written: `{date}` is today's UTC date
 * (a schedule keeps each period's files: campaigns/{date}/campaign.json), and with a target the
 * path is the organization's own (c.json is c.alpha.json, docs/multi-org.md). A step without one
 * of the files it cannot do without is refused up front with its usage (exit 4).
 */
import { ConfigError } from "../../errors.js";
import type { ParsedValues } from "../args.js";
import { stringOption } from "../args.js";
import { datedPath, ownPath } from "../output-paths.js";
import type { Runtime } from "../pipeline.js";

export interface StepInput {
  values: ParsedValues;
  /** decide's decisions files. */
  files: string[];
  runtime: Runtime;
}

export function need(step: StepInput, name: string, action: string, usage: string): string {
  const v = maybe(step, name);
  if (v === undefined)
    throw new ConfigError({
      message: `usersync campaign ${action} needs --${name} FILE: ${usage}. See usersync campaign --help.`,
    });
  return v;
}

export const maybe = (step: StepInput, name: string): string | undefined =>
  ownPath(datedPath(stringOption(step.values, name)), step.runtime.config);
