// First step of `npm test` and `npm run bench`, so a fresh clone needs no other set-up:
// - system packages: Debian's chromium (the headless browser, and SwiftShader, the software Vulkan
//   driver WebGPU runs on without a GPU), firefox-esr (the browser tier's second WebGPU
//   implementation, wgpu) and the Vulkan loader Dawn opens; installed with apt-get
//   when running as root, otherwise it stops with one line saying what to install;
// - npm packages: `npm ci` when node_modules is missing or older than package-lock.json.
import { existsSync, statSync } from 'node:fs';
import { execSync } from 'node:child_process';

const needs = [
  { file: '/usr/bin/chromium', pkg: 'chromium' },
  { file: '/usr/lib/chromium/vk_swiftshader_icd.json', pkg: 'chromium' },
  { file: '/usr/bin/firefox-esr', pkg: 'firefox-esr' },
  {
    file: ['/usr/lib/x86_64-linux-gnu/libvulkan.so.1', '/usr/lib/aarch64-linux-gnu/libvulkan.so.1'],
    pkg: 'libvulkan1',
  },
];
const missing = [
  ...new Set(needs.filter(({ file }) => ![file].flat().some((f) => existsSync(f))).map(({ pkg }) => pkg)),
];

if (missing.length > 0) {
  const cmd = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    console.error(`cleave: missing system packages; install them first: sudo sh -c '${cmd}'`);
    process.exit(1);
  }
  console.log(`cleave: installing ${missing.join(', ')} (${cmd})`);
  execSync(cmd, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

const lock = 'package-lock.json';
const installed = 'node_modules/.package-lock.json';
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  console.log('cleave: installing npm packages (npm ci)');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}
