// Helpers of the browser tests: find Chromium, serve a directory over loopback HTTP, load a
// page in headless Chromium and return its DOM (and save a screenshot).
'use strict'
const http = require('node:http')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { promisify } = require('node:util')

function findChromium () {
  for (const c of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) {
    if (c && fs.existsSync(c)) return c
  }
  return null
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' }

/** Serves `root`, opens `/` in headless Chromium; the DOM after the page's scripts ran. */
async function pageDom (chromium, root, screenshot) {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(req.url.split('?')[0])
    const p = path.normalize(path.join(root, rel === '/' ? 'index.html' : rel))
    if (!p.startsWith(root) || !fs.existsSync(p) || fs.statSync(p).isDirectory()) { res.writeHead(404); res.end(); return }
    res.writeHead(200, { 'content-type': types[path.extname(p)] || 'application/octet-stream', 'cache-control': 'no-store' })
    fs.createReadStream(p).pipe(res)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/`
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'shangmi-chromium-'))
  const common = [`--user-data-dir=${profile}`, '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--virtual-time-budget=10000', '--window-size=900,700']
  try {
    const run = promisify(execFile)
    const { stdout } = await run(chromium, [...common, '--dump-dom', url], { timeout: 90000, maxBuffer: 1 << 22 })
    if (screenshot) await run(chromium, [...common, `--screenshot=${screenshot}`, url], { timeout: 90000 })
    return stdout
  } finally {
    server.close()
    fs.rmSync(profile, { recursive: true, force: true })
  }
}

module.exports = { findChromium, pageDom }
