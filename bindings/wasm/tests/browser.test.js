// The browser test: serves bindings/wasm/www (with the `--target web` build in www/pkg)
// over HTTP, loads it in headless Chromium, reads the self-test's verdict from the DOM and
// saves a screenshot (test-output/browser.png). Skipped when Chromium or www/pkg is missing,
// unless SHANGMI_REQUIRE_BROWSER=1 (CI).
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const fs = require('node:fs')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { promisify } = require('node:util')

const www = path.join(__dirname, '..', 'www')
const out = path.join(__dirname, '..', 'test-output')
const required = process.env.SHANGMI_REQUIRE_BROWSER === '1'

function findChromium () {
  for (const c of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) {
    if (c && fs.existsSync(c)) return c
  }
  return null
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' }

test('browser self-test in headless Chromium', async (t) => {
  const chromium = findChromium()
  const havePkg = fs.existsSync(path.join(www, 'pkg', 'shangmi_wasm.js'))
  if (!chromium || !havePkg) {
    if (required) assert.fail(`chromium=${chromium} www/pkg=${havePkg}`)
    t.skip('no chromium or no www/pkg build')
    return
  }
  const server = http.createServer((req, res) => {
    const p = path.normalize(path.join(www, decodeURIComponent(req.url.split('?')[0]) === '/' ? 'index.html' : decodeURIComponent(req.url.split('?')[0])))
    if (!p.startsWith(www) || !fs.existsSync(p) || fs.statSync(p).isDirectory()) { res.writeHead(404); res.end(); return }
    res.writeHead(200, { 'content-type': types[path.extname(p)] || 'application/octet-stream', 'cache-control': 'no-store' })
    fs.createReadStream(p).pipe(res)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/`
  fs.mkdirSync(out, { recursive: true })
  const profile = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'shangmi-chromium-'))
  const common = [`--user-data-dir=${profile}`, '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--virtual-time-budget=10000', '--window-size=900,700']
  try {
    const run = promisify(execFile)
    const { stdout } = await run(chromium, [...common, '--dump-dom', url], { timeout: 90000, maxBuffer: 1 << 22 })
    const status = /<div id="status"[^>]*>([^<]*)<\/div>/.exec(stdout)
    const logm = /<pre id="log">([\s\S]*?)<\/pre>/.exec(stdout)
    fs.writeFileSync(path.join(out, 'browser-dom.html'), stdout)
    if (logm) for (const line of logm[1].replace(/&amp;/g, '&').split('\n')) t.diagnostic(line)
    await run(chromium, [...common, `--screenshot=${path.join(out, 'browser.png')}`, url], { timeout: 90000 })
    t.diagnostic(`screenshot: ${path.join(out, 'browser.png')}`)
    assert.ok(status, 'no status element in the DOM')
    assert.equal(status[1], 'SELFTEST PASS')
  } finally {
    server.close()
    fs.rmSync(profile, { recursive: true, force: true })
  }
})
