// The `shangmi` package for Node: picks the engine at load — the native addon
// (native/shangmi.<platform>-<arch>.node, napi-rs) when it is there and loads, the
// WebAssembly module (pkg-node/) otherwise — and exports one API over either (api.js).
// SHANGMI_ENGINE=wasm (or native) forces one; `engine` says which was taken. `load()`
// resolves to the same object, as the browser entry's `load()` (js/web.mjs) does. On the
// native engine it also has `tlcp` (connect, Agent, connector), certificates, CMS and PKCS#12.
'use strict'
const path = require('node:path')
const makeShangmi = require('./api.js')

function loadNative () {
  const file = path.join(__dirname, '..', 'native', `shangmi.${process.platform}-${process.arch}.node`)
  return require(file)
}

function pick () {
  const want = process.env.SHANGMI_ENGINE
  if (want && want !== 'native' && want !== 'wasm') throw new Error('SHANGMI_ENGINE must be native or wasm')
  if (want !== 'wasm') {
    try {
      return makeShangmi(loadNative(), 'native')
    } catch (e) {
      if (want === 'native') throw e
    }
  }
  return makeShangmi(require('../pkg-node/shangmi_wasm.js'), 'wasm')
}

const api = pick()
// The TLCP client needs the addon and Node's net/stream/https (js/tlcp.js); on the wasm
// engine api.js's stand-ins throw NativeRequiredError.
const tlcp = api.engine === 'native' ? require('./tlcp.js')(api) : api.tlcp
const { _native, ...pub } = api
module.exports = Object.freeze({ ...pub, tlcp, load: () => Promise.resolve(module.exports) })
