// Test tiers: test/planner (plain Node), test/gpu (Dawn on a real adapter), test/browser
// (the built bundle in headless Chromium and Firefox). GPU tests run on SwiftShader unless
// VK_ICD_FILENAMES already names a driver; Firefox, which has no software fallback of its own,
// inherits it from the test process.
import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { compactWgsl } from './scripts/lib/compact-wgsl.mjs';
import SummaryLine from './test/helpers/summary-reporter.js';

const swiftshader = '/usr/lib/chromium/vk_swiftshader_icd.json';
const env: Record<string, string> = {};
if (!process.env.VK_ICD_FILENAMES && existsSync(swiftshader)) env.VK_ICD_FILENAMES = swiftshader;

export default defineConfig({
  plugins: [compactWgsl()],
  test: {
    include: ['test/**/*.test.ts'],
    env,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', new SummaryLine()],
  },
});
