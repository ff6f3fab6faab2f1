// Finds the native programs (index-builder, proxy) of this machine's platform package, the
// esbuild/Pagefind pattern: the plugin lists one optional dependency per platform
// (docusaurus-plugin-book-chat-<os>-<cpu>); npm installs the one whose `os`/`cpu` match, and it is
// found here with require.resolve, never on PATH or through cargo.
const fs = require('fs');
const path = require('path');

const PLUGIN = 'docusaurus-plugin-book-chat';

/** Platforms with a published binary package. Adding one: a folder npm/<os>-<cpu>/ built by scripts/pack.sh. */
const SUPPORTED = ['linux-x64'];

/** The error an author sees when no native package fits or it is damaged. */
class PlatformError extends Error {}

/** `linux-x64`, `darwin-arm64`, ... as Node names them. */
function platformKey(platform = process.platform, arch = process.arch) {
  return `${platform}-${arch}`;
}

/** Name of the platform package for `key`. */
function packageName(key) {
  return `${PLUGIN}-${key}`;
}

/**
 * The folder of this platform's package (holding bin/index-builder and bin/proxy).
 * `resolve` is injectable for tests.
 */
function platformDir({key = platformKey(), resolve = require.resolve} = {}) {
  if (!SUPPORTED.includes(key)) {
    throw new PlatformError(
      `[${PLUGIN}] no native index builder for this platform (${key}); supported: ${SUPPORTED.join(', ')}. ` +
        'Build the index on a supported machine (for example in CI) or set the plugin option indexBuilder.',
    );
  }
  const name = packageName(key);
  let pkgJson;
  try {
    pkgJson = resolve(`${name}/package.json`, {paths: [__dirname, process.cwd()]});
  } catch {
    throw new PlatformError(
      `[${PLUGIN}] the package ${name} is not installed (it is an optional dependency of ${PLUGIN}; ` +
        `npm skips it with --omit=optional or a lockfile made on another platform). Fix: npm install ${name}`,
    );
  }
  return path.dirname(pkgJson);
}

/** Path of one program (`index-builder` or `proxy`) of this platform's package, checked to exist. */
function nativeBinary(program, opts) {
  const dir = platformDir(opts);
  const exe = path.join(dir, 'bin', process.platform === 'win32' ? `${program}.exe` : program);
  if (!fs.existsSync(exe)) {
    throw new PlatformError(`[${PLUGIN}] ${exe} is missing from ${packageName(opts?.key || platformKey())}; reinstall it (npm install ${packageName(opts?.key || platformKey())})`);
  }
  return exe;
}

module.exports = {SUPPORTED, PlatformError, platformKey, packageName, platformDir, nativeBinary};
