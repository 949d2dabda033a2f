/** `--today` (run-day.ts): the day a plan is made for, to rehearse a start or end date. */
/** `--today` of plan, apply and review; its shape is options.ts's OptionSpec (checked where it is spread). */
export const TODAY_OPTION = {
  today: {
    type: "string",
    value: "DATE",
    help: "plan as on this day, YYYY-MM-DD (default: today, local time):\nwho starts and ends by their startDate/endDate (docs/onboarding.md)",
  },
} as const;
