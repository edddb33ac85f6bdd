// Headless Debian Chromium for the browser benches (playwright-core): offline, no GPU, no
// background network, a fresh profile in the folder given. The tests' own launcher is
// test/support/browser.ts.
import path from 'node:path';

export const CHROMIUM = process.env.AMP_REWRITE_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(dir) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    offline: true,
    viewport: { width: 1400, height: 860 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
