// The npm archive (issue 39): `npm pack` of this directory, installed with `npm install`
// from the archive into a fresh project in a temp dir, then required there by name — on
// the native engine when the addon was built, and on the wasm engine (SHANGMI_ENGINE=wasm).
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const pkgDir = path.join(__dirname, '..')
const hasNative = fs.existsSync(path.join(pkgDir, 'native', `shangmi.${process.platform}-${process.arch}.node`))

test('npm pack: the archive installs into a fresh project and require("shangmi") works on both engines', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shangmi-pack-'))
  try {
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: pkgDir, encoding: 'utf8' })
    const [info] = JSON.parse(out)
    const files = info.files.map((f) => f.path).sort()
    for (const f of ['js/index.js', 'js/api.js', 'js/tlcp.js', 'js/index.d.ts', 'pkg-node/shangmi_wasm.js', 'pkg-node/shangmi_wasm_bg.wasm', 'package.json']) {
      assert.ok(files.includes(f), `${f} missing from the archive: ${files.join(' ')}`)
    }
    assert.ok(!files.some((f) => f.startsWith('tests/') || f.startsWith('src/') || f.startsWith('node_modules/')), files.join(' '))
    const project = path.join(tmp, 'project')
    fs.mkdirSync(project)
    fs.writeFileSync(path.join(project, 'package.json'), '{"name": "try-shangmi", "private": true}\n')
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', path.join(tmp, info.filename)], { cwd: project })
    // the TLCP client loads from the archive on the native engine (a function), on the wasm
    // engine it is the stand-in that throws NativeRequiredError
    const probe = "const s = require('shangmi'); let t; try { s.tlcp.connect({}) } catch (e) { t = e.name } console.log(s.engine, s.sm3('abc'), s.sm2.verifyPublicKey(s.sm2.generateKeyPairHex().publicKey), t)"
    const run = (engine) => execFileSync(process.execPath, ['-e', probe], {
      cwd: project, encoding: 'utf8', env: { ...process.env, SHANGMI_ENGINE: engine }
    }).trim().split(' ')
    const sm3abc = '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0' // GB/T 32905 A.1
    assert.deepEqual(run('wasm'), ['wasm', sm3abc, 'true', 'NativeRequiredError'])
    if (hasNative) assert.deepEqual(run(''), ['native', sm3abc, 'true', 'RangeError'])
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
})
