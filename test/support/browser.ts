/**
 * Headless Debian Chromium driven by playwright-core, for the HTML report's tests and bench:
 * no sandbox (CI runs as root), no GPU, no network features, a fresh profile each launch.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.AMP_REWRITE_CHROMIUM ?? '/usr/bin/chromium';

export const chromiumMissing = (): string | undefined => (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not found (apt-get install chromium; .ci/run installs it)`);

/** A fresh profile directory each time (playwright passes it as --user-data-dir). */
export async function launchChromium(viewport = { width: 1400, height: 860 }): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'amp-rewrite-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    offline: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
