// The browser test: serves bindings/wasm/www (with the `--target web` build in www/pkg)
// over HTTP, loads it in headless Chromium, reads the self-test's verdict from the DOM and
// saves a screenshot (test-output/browser.png). Skipped when Chromium or www/pkg is missing,
// unless SHANGMI_REQUIRE_BROWSER=1 (CI).
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { findChromium, pageDom } = require('./chromium.js')

const www = path.join(__dirname, '..', 'www')
const out = path.join(__dirname, '..', 'test-output')
const required = process.env.SHANGMI_REQUIRE_BROWSER === '1'

test('browser self-test in headless Chromium', async (t) => {
  const chromium = findChromium()
  const havePkg = fs.existsSync(path.join(www, 'pkg', 'shangmi_wasm.js'))
  if (!chromium || !havePkg) {
    if (required) assert.fail(`chromium=${chromium} www/pkg=${havePkg}`)
    t.skip('no chromium or no www/pkg build')
    return
  }
  fs.mkdirSync(out, { recursive: true })
  const dom = await pageDom(chromium, www, path.join(out, 'browser.png'))
  fs.writeFileSync(path.join(out, 'browser-dom.html'), dom)
  const status = /<div id="status"[^>]*>([^<]*)<\/div>/.exec(dom)
  const logm = /<pre id="log">([\s\S]*?)<\/pre>/.exec(dom)
  if (logm) for (const line of logm[1].replace(/&amp;/g, '&').split('\n')) t.diagnostic(line)
  t.diagnostic(`screenshot: ${path.join(out, 'browser.png')}`)
  assert.ok(status, 'no status element in the DOM')
  assert.equal(status[1], 'SELFTEST PASS')
})
