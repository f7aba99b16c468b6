// The `shangmi` package in browsers and bundlers (the "browser" entry of package.json):
// the WebAssembly engine as an ES module under the same API as in Node. The glue finds the
// .wasm file with `new URL('shangmi_wasm_bg.wasm', import.meta.url)`, which webpack 5 and
// vite emit as an asset; `load()` fetches and instantiates it once.
//   import { load } from 'shangmi'; const { sm2, sm3, sm4 } = await load()
import init, * as engine from '../pkg-web/shangmi_wasm.js'
import makeShangmi from '../pkg-web/api.js'

let loaded
/** Resolves to the package's API (as `require('shangmi')` in Node) on the wasm engine. */
export function load (wasm) {
  if (!loaded) loaded = init(wasm === undefined ? undefined : { module_or_path: wasm }).then(() => makeShangmi(engine, 'wasm'))
  return loaded
}
export default load
