// Makes sure the system packages the tests and the bench need are here: Debian's chromium (headless
// browser, and SwiftShader, the software Vulkan driver WebGPU runs on without a GPU) and the Vulkan
// loader Dawn opens. Installs them with apt-get when running as root; otherwise stops with one line.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

const needs = [
  { file: '/usr/bin/chromium', pkg: 'chromium' },
  { file: '/usr/lib/chromium/vk_swiftshader_icd.json', pkg: 'chromium' },
  { file: ['/usr/lib/x86_64-linux-gnu/libvulkan.so.1', '/usr/lib/aarch64-linux-gnu/libvulkan.so.1'], pkg: 'libvulkan1' },
];
const missing = [...new Set(needs
  .filter(({ file }) => ![file].flat().some((f) => existsSync(f)))
  .map(({ pkg }) => pkg))];

if (missing.length > 0) {
  const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    console.error(`cleave: missing system packages; install them first: sudo sh -c '${cmd}'`);
    process.exit(1);
  }
  console.log(`cleave: installing ${missing.join(', ')} (${cmd})`);
  execSync(cmd, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}
