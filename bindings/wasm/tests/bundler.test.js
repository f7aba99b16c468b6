// The bundler target (issue 39): the `npm pack` archive installed into a fresh project,
// an app that does `import { load } from 'shangmi'` bundled by webpack 5 (the package's
// "browser" entry, js/web.mjs, with the .wasm emitted as an asset), and the bundle loaded in
// headless Chromium, which must report the SM3/SM4/SM2 checks passing. Skipped without
// Chromium unless SHANGMI_REQUIRE_BROWSER=1 (CI).
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { findChromium, pageDom } = require('./chromium.js')

const pkgDir = path.join(__dirname, '..')
const required = process.env.SHANGMI_REQUIRE_BROWSER === '1'

const APP = `import { load } from 'shangmi'
const status = document.getElementById('status')
load().then((sm) => {
  const k = sm.sm2.generateKeyPairHex()
  const checks = [
    sm.engine === 'wasm',
    // GB/T 32905-2016 A.1, GB/T 32907-2016 A.1
    sm.sm3('abc') === '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0',
    sm.sm4.encrypt([1, 35, 69, 103, 137, 171, 205, 239, 254, 220, 186, 152, 118, 84, 50, 16], '0123456789abcdeffedcba9876543210', { padding: 'none' }) === '681edf34d206965e86b3e94f536e4246',
    sm.sm2.doVerifySignature('bundle', sm.sm2.doSignature('bundle', k.privateKey), k.publicKey),
    sm.sm2.doDecrypt(sm.sm2.doEncrypt('bundle', k.publicKey), k.privateKey) === 'bundle',
    (() => { try { sm.sm3(123); return false } catch (e) { return e instanceof TypeError } })()
  ]
  status.textContent = checks.every(Boolean) ? 'BUNDLE PASS' : 'BUNDLE FAIL ' + JSON.stringify(checks)
}).catch((e) => { status.textContent = 'BUNDLE FAIL ' + e })
`

test('webpack bundle of an app importing the packed package runs in headless Chromium', async (t) => {
  const chromium = findChromium()
  if (!chromium) {
    if (required) assert.fail('no chromium')
    t.skip('no chromium')
    return
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shangmi-bundle-'))
  try {
    const [info] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: pkgDir, encoding: 'utf8' }))
    const project = path.join(tmp, 'app')
    fs.mkdirSync(project)
    fs.writeFileSync(path.join(project, 'package.json'), '{"name": "bundle-shangmi", "private": true}\n')
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', path.join(tmp, info.filename)], { cwd: project })
    fs.writeFileSync(path.join(project, 'app.mjs'), APP)
    const webpack = require('webpack')
    const dist = path.join(project, 'dist')
    const stats = await new Promise((resolve, reject) => webpack({
      mode: 'production',
      context: project,
      entry: './app.mjs',
      target: 'web',
      output: { path: dist, filename: 'main.js', publicPath: 'auto' },
      performance: { hints: false }
    }, (err, s) => err ? reject(err) : resolve(s)))
    assert.ok(!stats.hasErrors(), stats.toString('errors-only'))
    const assets = fs.readdirSync(dist)
    assert.ok(assets.some((f) => f.endsWith('.wasm')), `no .wasm asset emitted: ${assets.join(' ')}`)
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><meta charset="utf-8"><div id="status">running</div><script src="main.js"></script>\n')
    const dom = await pageDom(chromium, dist)
    const status = /<div id="status"[^>]*>([^<]*)<\/div>/.exec(dom)
    assert.ok(status, 'no status element in the DOM')
    assert.equal(status[1], 'BUNDLE PASS')
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
})
