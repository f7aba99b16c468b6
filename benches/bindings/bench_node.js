// Speed of the npm package's sm-crypto layer against npm's sm-crypto in one process,
// alternated rounds, best kept. A benchmark, not a test. The engine is the package's
// default (the native addon when built); SHANGMI_ENGINE=wasm for the wasm one.
// bindings/wasm/bench/bench.js is the per-process table of both engines.
//   node bench_node.js <path to bindings/wasm> [--quick]
'use strict'
const path = require('node:path')
const crypto = require('node:crypto')
const pkg = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : path.join(__dirname, '..', '..', 'bindings', 'wasm')
const ours = require(path.resolve(pkg))
const theirs = require(require.resolve('sm-crypto', { paths: [path.join(__dirname, '..', '..', 'bindings', 'wasm')] }))
const quick = process.argv.includes('--quick')

function rate (fn, mib) {
  let best = 0
  for (let r = 0; r < 3; r++) {
    let n = 0; const t0 = process.hrtime.bigint(); let dt
    do { fn(); n++; dt = Number(process.hrtime.bigint() - t0) / 1e9 } while (dt < (quick ? 0.1 : 0.35))
    best = Math.max(best, n / dt)
  }
  return mib ? best * mib : best
}

const MiB = Array.from(crypto.randomBytes(1 << 20))
const MiBu8 = Uint8Array.from(MiB)
const key = crypto.randomBytes(16).toString('hex'); const iv = crypto.randomBytes(16).toString('hex')
const kp = ours.sm2.generateKeyPairHex()
const sigO = ours.sm2.doSignature('message', kp.privateKey, { hash: true })
const sigT = theirs.sm2.doSignature('message', kp.privateKey, { hash: true })
const cases = [
  ['SM2 sign (hash: true)', 'op/s', () => ours.sm2.doSignature('message', kp.privateKey, { hash: true }), () => theirs.sm2.doSignature('message', kp.privateKey, { hash: true })],
  ['SM2 verify (hash: true)', 'op/s', () => ours.sm2.doVerifySignature('message', sigO, kp.publicKey, { hash: true }), () => theirs.sm2.doVerifySignature('message', sigT, kp.publicKey, { hash: true })],
  ['SM2 encrypt 100 B', 'op/s', () => ours.sm2.doEncrypt('x'.repeat(100), kp.publicKey, 1), () => theirs.sm2.doEncrypt('x'.repeat(100), kp.publicKey, 1)],
  ['SM4-CBC enc 1 MiB', 'MiB/s', () => ours.sm4.encrypt(MiB, key, { mode: 'cbc', iv, output: 'array' }), () => theirs.sm4.encrypt(MiB, key, { mode: 'cbc', iv, output: 'array' }), 1],
  ['SM3 1 MiB', 'MiB/s', () => ours.sm3(MiB), () => theirs.sm3(MiB), 1],
  ['SM3 1 MiB (typed API)', 'MiB/s', () => ours.sm3Digest(MiBu8), () => theirs.sm3(MiBu8), 1],
  ['SM4-CBC 1 MiB (typed API)', 'MiB/s', () => ours.sm4CbcEncrypt(Buffer.from(key, 'hex'), Buffer.from(iv, 'hex'), MiBu8), () => theirs.sm4.encrypt(MiBu8, key, { mode: 'cbc', iv, output: 'array' }), 1],
]
console.log('operation'.padEnd(28) + `shangmi (${ours.engine})`.padStart(18) + 'sm-crypto'.padStart(12) + 'ratio'.padStart(9))
for (const [name, unit, o, t, mib] of cases) {
  const a = rate(o, mib); const b = rate(t, mib)
  console.log(name.padEnd(28) + a.toFixed(1).padStart(18) + b.toFixed(1).padStart(12) + ((a / b).toFixed(1) + 'x').padStart(9) + '  ' + unit)
}
