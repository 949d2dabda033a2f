/**
 * A real headless Chromium (Debian's `chromium`, driven by playwright-core) for the access
 * review's HTML page: a fresh profile directory per browser, nothing fetched at start (no
 * component updates, no sync, no background networking), and every console error, page error
 * and request the page makes recorded, so a test can say the page loaded cleanly and offline.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function startChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "usersync-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1400, height: 1000 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface OpenedPage {
  page: Page;
  /** Console errors and uncaught page errors, as text. */
  errors: string[];
  /** Every URL the page asked for besides itself. */
  requests: string[];
}

/** Opens a file as a person would (file://) and waits until the page's script said it is ready (unless `ready: false`). */
export async function openFile(
  browser: Browser,
  file: string,
  o: { ready?: boolean } = {},
): Promise<OpenedPage> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  const url = pathToFileURL(file).href;
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e.stack ?? e)));
  page.on("request", (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  await page.goto(url, { waitUntil: "load" });
  if (o.ready !== false)
    await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 }).catch(() => undefined);
  return { page, errors, requests };
}
