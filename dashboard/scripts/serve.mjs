#!/usr/bin/env node
// Serves the built dashboard (dist/) and the bench results folder under /results/.
//   npm run serve            http://127.0.0.1:5173, results from ../results
//   RESULTS_DIR=/path PORT=5174 HOST=127.0.0.1 npm run serve
// No dependencies, so the Docker image can run it on a bare node image.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

export function resultsDir() {
  return resolve(root, process.env.RESULTS_DIR || '../results');
}

/** The file under `base` that a URL path names, or null if it escapes `base` or is not a file. */
function fileUnder(base, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const full = resolve(base, '.' + (decoded.startsWith('/') ? decoded : `/${decoded}`));
  if (full !== base && !full.startsWith(base + sep)) return null;
  try {
    return statSync(full).isFile() ? full : null;
  } catch {
    return null;
  }
}

function send(res, status, text) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

function sendFile(req, res, file, cache) {
  res.writeHead(200, {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': cache,
    'X-Content-Type-Options': 'nosniff',
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).pipe(res);
}

/** Connect-style middleware for /results/* (also used by the Vite dev server). */
export function resultsMiddleware(dir) {
  const base = resolve(dir);
  return (req, res, next) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (!path.startsWith('/results/')) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
    const file = fileUnder(base, path.slice('/results'.length));
    if (!file) return send(res, 404, 'not found');
    sendFile(req, res, file, 'no-store');
  };
}

export function startServer({ distDir = join(root, 'dist'), results = resultsDir(), host = '127.0.0.1', port = 5173 } = {}) {
  const dist = resolve(distDir);
  const results_ = resultsMiddleware(results);
  const server = createServer((req, res) => {
    results_(req, res, () => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
      let path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path.endsWith('/')) path += 'index.html';
      const file = fileUnder(dist, path);
      if (!file) return send(res, 404, 'not found');
      sendFile(req, res, file, path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    });
  });
  return new Promise((resolveStart, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolveStart(server));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.env.PORT || 5173);
  const host = process.env.HOST || '127.0.0.1';
  const results = resultsDir();
  try {
    statSync(join(root, 'dist', 'index.html'));
  } catch {
    console.error('dashboard/dist is missing: run `npm run build` first (make dashboard does both).');
    process.exit(1);
  }
  startServer({ host, port, results }).then(
    () => {
      console.log(`Tandem dashboard: http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/  (results from ${results}; Ctrl-C stops)`);
    },
    (err) => {
      console.error(`Could not listen on ${host}:${port}: ${err.message}`);
      process.exit(1);
    },
  );
}
