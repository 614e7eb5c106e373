// Puppeteer must never download a browser: Cleave drives Debian's /usr/bin/chromium.
module.exports = { skipDownload: true, executablePath: '/usr/bin/chromium' };
