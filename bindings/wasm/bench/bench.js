// Speed of the package's two engines against npm's sm-crypto (not run in CI: timings are
// not tests). Each measurement is its own Node process; the implementations are alternated
// (A B C A B C ...) and the best of 3 rounds is kept, so a busy machine shows as noise
// rather than bias; times are the process's CPU time unless SHANGMI_BENCH_WALL=1. `npm run
// bench` (needs `npm run build` and `npm install`).
//   node bench/bench.js [rounds] [name filter, e.g. GCM]
'use strict'
const { execFileSync } = require('node:child_process')
const os = require('node:os')
const path = require('node:path')

const MiB = 1 << 20
// [name, bytes per op (0: count ops), implementations, (api, impl) => function to time]
const CASES = [
  ['SM4-CBC 1 MiB (sm4.encrypt, cbc)', MiB, ['native', 'wasm', 'sm-crypto'], (s) => {
    const data = new Uint8Array(MiB).fill(7); const key = '0123456789abcdeffedcba9876543210'
    return () => s.sm4.encrypt(data, key, { mode: 'cbc', iv: key })
  }],
  ['SM3 1 MiB (sm3)', MiB, ['native', 'wasm', 'sm-crypto'], (s) => {
    const data = new Uint8Array(MiB).fill(7)
    return () => s.sm3(data)
  }],
  ['SM2 sign (sm2.doSignature)', 0, ['native', 'wasm', 'sm-crypto'], (s) => {
    const k = s.sm2.generateKeyPairHex()
    return () => s.sm2.doSignature('message digest', k.privateKey)
  }],
  ['SM2 verify (sm2.doVerifySignature)', 0, ['native', 'wasm', 'sm-crypto'], (s) => {
    const k = s.sm2.generateKeyPairHex(); const sig = s.sm2.doSignature('message digest', k.privateKey)
    return () => s.sm2.doVerifySignature('message digest', sig, k.publicKey)
  }],
  ['SM4-GCM 1 MiB (sm4GcmEncrypt)', MiB, ['native', 'wasm'], (s) => {
    const data = new Uint8Array(MiB).fill(7); const key = new Uint8Array(16); const nonce = new Uint8Array(12)
    return () => s.sm4GcmEncrypt(key, nonce, data)
  }],
  ['SM4-CBC 1 MiB (sm4CbcEncrypt, typed)', MiB, ['native', 'wasm'], (s) => {
    const data = new Uint8Array(MiB).fill(7); const key = new Uint8Array(16)
    return () => s.sm4CbcEncrypt(key, key, data)
  }],
  ['SM4-CTR 1 MiB (sm4Ctr)', MiB, ['native', 'wasm'], (s) => {
    const data = new Uint8Array(MiB).fill(7); const key = new Uint8Array(16)
    return () => s.sm4Ctr(key, key, data)
  }]
]

function child (caseIndex, impl) {
  if (impl !== 'sm-crypto') process.env.SHANGMI_ENGINE = impl
  const s = impl === 'sm-crypto' ? require('sm-crypto') : require('..')
  if (impl !== 'sm-crypto' && s.engine !== impl) throw new Error(`asked for ${impl}, got ${s.engine}`)
  const [, , , make] = CASES[caseIndex]
  const f = make(s)
  f() // warm up
  // CPU time (user + system) of this process, not wall time: on a loaded machine the
  // wall clock mostly counts the time other processes ran (SHANGMI_BENCH_WALL=1 for it).
  const wall = process.env.SHANGMI_BENCH_WALL === '1'
  const now = () => wall ? Number(process.hrtime.bigint()) / 1e3 : (({ user, system }) => user + system)(process.cpuUsage())
  let n = 0; const t0 = now(); let t = t0
  while (t - t0 < 400_000 || n < 3) { f(); n++; t = now() }
  process.stdout.write(String((t - t0) / 1e6 / n)) // seconds per op
}

function main () {
  const rounds = Number(process.argv[2] || 3)
  const cpu = os.cpus()[0].model
  const clock = process.env.SHANGMI_BENCH_WALL === '1' ? 'wall time' : 'process CPU time'
  console.log(`CPU: ${cpu}; Node ${process.version}; best of ${rounds}, one process per measurement, alternated; ${clock}`)
  const rows = []
  const filter = process.argv[3] || ''
  for (let c = 0; c < CASES.length; c++) {
    const [name, bytes, impls] = CASES[c]
    if (!name.includes(filter)) continue
    const best = {}
    for (let r = 0; r < rounds; r++) {
      for (const impl of impls) {
        const secs = Number(execFileSync(process.execPath, [__filename, '--child', String(c), impl], { encoding: 'utf8' }))
        best[impl] = Math.min(best[impl] ?? Infinity, secs)
      }
    }
    const fmt = (s) => bytes ? `${(bytes / s / 1e6).toFixed(1)} MB/s` : `${Math.round(1 / s)} op/s`
    const base = best['sm-crypto'] ?? best.wasm
    const vs = best['sm-crypto'] ? 'sm-crypto' : 'wasm'
    const cells = impls.map((i) => `${i} ${fmt(best[i])}`)
    const ratio = (base / best.native).toFixed(1)
    rows.push(`| ${name} | ${cells.join(' | ')} | native ${ratio}x ${vs}${vs === 'sm-crypto' ? `, wasm ${(base / best.wasm).toFixed(1)}x` : ''} |`)
    console.log(rows[rows.length - 1])
  }
}

if (process.argv[2] === '--child') child(Number(process.argv[3]), process.argv[4])
else main()
