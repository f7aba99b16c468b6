// Browser self-test of the package's WebAssembly engine built with `--target web` into
// ./pkg, under the same API layer as in Node (pkg/api.js, made from js/api.js): published
// vectors (GB/T 32905 A.1, GB/T 32907 A.1, RFC 8998 A.1, GB/T 32918.5 Annex C) and round
// trips through the sm-crypto layer, with randomness from crypto.getRandomValues.
import init, * as engine from './pkg/shangmi_wasm.js'
import makeShangmi from './pkg/api.js'

let sm

const hex = (u) => Array.from(u, (b) => b.toString(16).padStart(2, '0')).join('')
const unhex = (s) => Uint8Array.from(s.match(/../g).map((h) => parseInt(h, 16)))
const enc = new TextEncoder()
const log = []
let failures = 0
function check (name, ok) {
  log.push(`${ok ? 'ok  ' : 'FAIL'} ${name}`)
  if (!ok) failures++
}

async function run () {
  await init()
  sm = makeShangmi(engine, 'wasm')
  check('typed refusal: a number is a TypeError', (() => { try { sm.sm3(123); return false } catch (e) { return e instanceof TypeError } })())
  check('SM3 "abc" (GB/T 32905 A.1)', hex(sm.sm3Digest(enc.encode('abc'))) === '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0')
  const K = unhex('0123456789abcdeffedcba9876543210')
  check('SM4 block (GB/T 32907 A.1)', hex(sm.sm4EcbEncrypt(K, K, false)) === '681edf34d206965e86b3e94f536e4246')
  const pt = unhex('aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccddddddddddddddddeeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa')
  const gcm = sm.sm4GcmEncrypt(K, unhex('00001234567800000000abcd'), pt, unhex('feedfacedeadbeeffeedfacedeadbeefabaddad2'))
  check('SM4-GCM tag (RFC 8998 A.1)', hex(gcm.slice(-16)) === '83de3541e4c2b58177e065a9bf7b62ec')
  const key = sm.Sm2PrivateKey.fromBytes(unhex('3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8'))
  const ct = unhex('0404ebfc718e8d1798620432268e77feb6415e2ede0e073c0f4f640ecd2e149a73e858f9d81e5430a57b36daab8f950a3c64e6ee6a63094d99283aff767e124df059983c18f809e262923c53aec295d30383b54e39d609d160afcb1908d0bd876621886ca989ca9c7d58087307ca93092d651efa')
  check('SM2 decrypt (GB/T 32918.5 Annex C)', new TextDecoder().decode(key.decrypt(ct)) === 'encryption standard')
  const kp = sm.sm2.generateKeyPairHex()
  check('sm2.generateKeyPairHex (getRandomValues)', kp.privateKey.length === 64 && kp.publicKey.length === 130)
  const sig = sm.sm2.doSignature('browser', kp.privateKey, { hash: true })
  check('sm2.doSignature / doVerifySignature', sm.sm2.doVerifySignature('browser', sig, kp.publicKey, { hash: true }))
  const c = sm.sm2.doEncrypt('你好, browser', kp.publicKey, 1)
  check('sm2.doEncrypt / doDecrypt', sm.sm2.doDecrypt(c, kp.privateKey, 1) === '你好, browser')
  const k4 = '0123456789abcdeffedcba9876543210'
  check('sm4.encrypt / decrypt cbc', sm.sm4.decrypt(sm.sm4.encrypt('hello', k4, { mode: 'cbc', iv: k4 }), k4, { mode: 'cbc', iv: k4 }) === 'hello')
  check('sm3 hmac', sm.sm3('abc', { key: '00112233' }).length === 64)
  // a fixed count: under --virtual-time-budget the clock does not move while JS runs
  const sigs = []
  for (let i = 0; i < 20; i++) sigs.push(sm.sm2.doSignature('x' + i, kp.privateKey, {}))
  check('20 signatures verify', sigs.every((s, i) => sm.sm2.doVerifySignature('x' + i, s, kp.publicKey, {})))
}

run().catch((e) => { failures++; log.push('FAIL exception: ' + e) }).finally(() => {
  const status = document.getElementById('status')
  status.textContent = failures === 0 ? 'SELFTEST PASS' : `SELFTEST FAIL (${failures})`
  status.className = failures === 0 ? 'pass' : 'fail'
  document.getElementById('log').textContent = log.join('\n')
  document.title = status.textContent
})
