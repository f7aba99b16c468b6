// Typed refusals (issue 39): every exported function of the package, on each engine present
// (the native addon and the wasm module, both made here from js/api.js), is fed every JS type
// in each argument position (the others valid). The only outcomes allowed: a result, or an
// Error/TypeError/RangeError thrown by the JS layer — never a WebAssembly.RuntimeError (a
// trap), never an engine's own argument-conversion error. For the sm-crypto layer the real
// sm-crypto 0.5.8 is run on the same arguments: where both return, deterministic functions
// agree; where sm-crypto throws, so do we; where sm-crypto returns and we throw, the case
// must be one of the deliberate refusals the README lists (checked by `deliberate` below).
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const fs = require('node:fs')
const makeShangmi = require('../js/api.js')
const theirs = require('sm-crypto')

const engines = [['wasm', makeShangmi(require('../pkg-node/shangmi_wasm.js'), 'wasm')]]
const nativeFile = path.join(__dirname, '..', 'native', `shangmi.${process.platform}-${process.arch}.node`)
if (fs.existsSync(nativeFile)) engines.push(['native', makeShangmi(require(nativeFile), 'native')])
if (process.env.SHANGMI_REQUIRE_NATIVE === '1') assert.ok(engines.length === 2, 'no native addon at ' + nativeFile)

const KEY = theirs.sm2.generateKeyPairHex()
const SIG = theirs.sm2.doSignature('msg', KEY.privateKey)
const DER = theirs.sm2.doSignature('msg', KEY.privateKey, { der: true })
const CT = theirs.sm2.doEncrypt('msg', KEY.publicKey)
const K16 = '0123456789abcdeffedcba9876543210'

// every JS type, and the values of each type that reach different paths
const TYPES = {
  undefined,
  null: null,
  zero: 0,
  number: 123,
  negative: -1,
  nan: NaN,
  bigint: 10n,
  true: true,
  string: 'abc',
  empty: '',
  hex: '00ff',
  longHex: 'ab'.repeat(40),
  object: { a: 1 },
  array: [1, 2, 3],
  emptyArray: [],
  stringArray: ['a', 'b'],
  u8: new Uint8Array([1, 2, 3]),
  u8x16: new Uint8Array(16).fill(7),
  u8x32: new Uint8Array(32).fill(7),
  function: () => 1,
  symbolLike: Object.create(null)
}

// [name, valid arguments, deterministic (results compared)]
const SMCRYPTO = [
  ['sm3', ['abc'], true],
  ['sm3', ['abc', { key: '00ff' }], true],
  ['sm4.encrypt', ['text', K16], true],
  ['sm4.encrypt', ['text', K16, { mode: 'cbc', iv: K16 }], true],
  ['sm4.decrypt', [theirs.sm4.encrypt('text', K16), K16], true],
  ['sm4.decrypt', [theirs.sm4.encrypt('text', K16, { mode: 'cbc', iv: K16 }), K16, { mode: 'cbc', iv: K16 }], true],
  ['sm2.generateKeyPairHex', [], false],
  ['sm2.getPublicKeyFromPrivateKey', [KEY.privateKey], true],
  ['sm2.compressPublicKeyHex', [KEY.publicKey], true],
  ['sm2.comparePublicKeyHex', [KEY.publicKey, KEY.publicKey], true],
  ['sm2.verifyPublicKey', [KEY.publicKey], true],
  ['sm2.doEncrypt', ['msg', KEY.publicKey, 1], false],
  ['sm2.doDecrypt', [CT, KEY.privateKey, 1, {}], true],
  ['sm2.doSignature', ['msg', KEY.privateKey, {}], false],
  ['sm2.doVerifySignature', ['msg', SIG, KEY.publicKey, {}], true],
  ['sm2.doVerifySignature', ['msg', DER, KEY.publicKey, { der: true }], true],
  ['sm2.getPoint', [], false]
]

const PRIVATE_KEY_AT = { 'sm2.getPublicKeyFromPrivateKey': 0, 'sm2.doDecrypt': 1, 'sm2.doSignature': 1 }
const get = (o, name) => name.split('.').reduce((x, k) => x[k], o)
const run = (f) => { try { return { ok: true, v: f() } } catch (e) { return { ok: false, e } } }

function assertTyped (e, what) {
  assert.ok(e instanceof Error, `${what}: threw a non-Error ${String(e)}`)
  assert.ok(!(e instanceof WebAssembly.RuntimeError), `${what}: wasm trap ${e.message}`)
  assert.ok([Error, TypeError, RangeError].includes(e.constructor) || e.name === 'NativeRequiredError', `${what}: ${e.constructor.name} ${e.message}`)
  assert.ok(!/unreachable|memory access|out of bounds|recursive use|null pointer|Failed to convert|is not a function/i.test(e.message),
    `${what}: an engine's own error reached the caller: ${e.message}`)
}

// Where sm-crypto returns and we throw, the README's deliberate differences: a value that is
// neither a string nor bytes where a message is expected (sm-crypto reads a number, boolean
// or object as an empty array), a private key longer than 64 hex digits, a seed that is not
// a number in its radix (jsbn skips the digits it cannot read), sm-crypto's lenient PKCS#7
// and dropped partial block on decryption, and the empty SM2 plaintext (GB/T 32918.4).
const MESSAGE_AT = { sm3: 0, 'sm4.encrypt': 0, 'sm4.decrypt': 0, 'sm2.doEncrypt': 0, 'sm2.doSignature': 0, 'sm2.doVerifySignature': 0 }
const NOT_DATA = ['zero', 'number', 'negative', 'nan', 'bigint', 'true', 'object', 'function', 'symbolLike', 'stringArray']
function deliberate (name, pos, kind, err) {
  if (NOT_DATA.includes(kind) && (MESSAGE_AT[name] === pos || (name === 'sm2.generateKeyPairHex' && pos === 0))) return err instanceof TypeError
  if (kind === 'longHex' && PRIVATE_KEY_AT[name] === pos) return /longer than 64/.test(err.message)
  if (name === 'sm2.generateKeyPairHex' && pos === 0 && typeof TYPES[kind] === 'string') return /not a base-10 number/.test(err.message)
  if (name === 'sm4.decrypt' && pos === 0) return /padding is invalid|whole number of 16-byte blocks/.test(err.message)
  if (name === 'sm2.doEncrypt' && pos === 0 && (kind === 'empty' || kind === 'emptyArray')) return /empty/i.test(err.message)
  return false
}
const theirsCache = new Map()

for (const [engineName, ours] of engines) {
  test(`${engineName}: the sm-crypto layer takes every JS type in every position`, () => {
    let compared = 0; let refused = 0
    for (const [name, valid, deterministic] of SMCRYPTO) {
      const width = Math.max(valid.length, 1) + 1
      for (let pos = 0; pos < width; pos++) {
        for (const [kind, value] of Object.entries(TYPES)) {
          const args = valid.slice()
          while (args.length <= pos) args.push(undefined)
          args[pos] = value
          const what = `${name} arg ${pos} = ${kind}`
          const a = run(() => get(ours, name)(...args))
          // sm-crypto's BigInteger of a non-string private key can loop for ever: not run
          if (PRIVATE_KEY_AT[name] === pos && typeof value !== 'string') {
            assert.ok(!a.ok && a.e instanceof TypeError, `${what}: a non-string private key must be a TypeError`)
            continue
          }
          const key = `${name} ${JSON.stringify(valid)} ${pos} ${kind}`
          if (!theirsCache.has(key)) theirsCache.set(key, run(() => get(theirs, name)(...args)))
          const b = theirsCache.get(key)
          if (!a.ok) assertTyped(a.e, what)
          if (a.ok && b.ok) {
            if (deterministic) { assert.deepEqual(a.v, b.v, what); compared++ }
          } else if (a.ok && !b.ok) {
            // sm-crypto throws, we return: only where sm-crypto fails on its own bug — none
            // expected except the predicates (which must say false where sm-crypto throws
            // inside) and sm4.decrypt('') with a bad padding option.
            assert.fail(`${what}: sm-crypto throws (${b.e && b.e.message}) but we return ${JSON.stringify(a.v)}`)
          } else if (!a.ok && b.ok) {
            assert.ok(deliberate(name, pos, kind, a.e), `${what}: sm-crypto returns ${JSON.stringify(b.v)}, we throw ${a.e.message}`)
            refused++
          }
        }
      }
    }
    test.diagnostic?.(`${compared} results compared, ${refused} deliberate refusals`)
  })

  test(`${engineName}: the typed API takes every JS type in every position`, () => {
    const b16 = new Uint8Array(16); const b12 = new Uint8Array(12); const b32 = Uint8Array.from({ length: 32 }, (_, i) => i)
    const key = ours.Sm2PrivateKey.generate()
    const pub = key.publicKey()
    const objects = {}
    const fns = {
      sm3Digest: [b16], hmacSm3: [b16, b16],
      sm4EcbEncrypt: [b16, b16, true], sm4EcbDecrypt: [b16, ours.sm4EcbEncrypt(b16, b16), true],
      sm4CbcEncrypt: [b16, b16, b16, true], sm4CbcDecrypt: [b16, b16, ours.sm4CbcEncrypt(b16, b16, b16), true],
      sm4Ctr: [b16, b16, b16], sm4GcmEncrypt: [b16, b12, b16, b16], sm4GcmDecrypt: [b16, b12, ours.sm4GcmEncrypt(b16, b12, b16, b16), b16],
      sm4CcmEncrypt: [b16, b12, b16, b16], sm4CcmDecrypt: [b16, b12, ours.sm4CcmEncrypt(b16, b12, b16, b16), b16],
      sm4XtsEncrypt: [b32, b16, b16, false], sm4XtsDecrypt: [b32, b16, b16, true], sm4Cmac: [b16, b16],
      'Sm2PrivateKey.fromBytes': [key.toBytes()], 'Sm2PrivateKey.fromPem': [key.toPem()],
      'Sm2PublicKey.fromBytes': [pub.toBytes()], 'Sm2PublicKey.fromPem': [pub.toPem()],
      'key.sign': [b16, b16, false], 'key.decrypt': [pub.encrypt(b16), 'C1C3C2'],
      'pub.verify': [key.sign(b16), b16, undefined], 'pub.encrypt': [b16, 'C1C2C3'], 'pub.toBytes': [true],
      'hasher.update': [b16],
      sm2KeyExchange: [{ initiator: true, privateKey: key.toBytes(), ephemeralPrivateKey: key.toBytes(), peerPublicKey: pub.toBytes(), peerEphemeralPublicKey: pub.toBytes() }]
    }
    // ZUC-128 on both engines; SM9, ZUC-256, certificates, CMS and PKCS#12 on the native one
    // (on the wasm engine: NativeRequiredError, which assertTyped takes)
    Object.assign(fns, {
      zucEea3: [b16, 1, 2, 0, b16, 128], zucEia3: [b16, 1, 2, 1, b16, 121], zucApply: [b16, b16, b16], zucKeystream: [b16, b16, 8]
    })
    if (engineName === 'native') {
      const sm9s = ours.Sm9SignMasterKey.fromBytes(b32); const sm9e = ours.Sm9EncryptMasterKey.fromBytes(b32)
      const alice = sm9s.extract(b16); const bob = sm9e.extract(b16)
      const ca = ours.certSelfSigned(key, '/CN=CA')
      const csr = ours.CertificateRequest.create(key, '/CN=leaf', ['DNS:leaf'])
      const leaf = ours.certIssueFromRequest(ca, key, csr)
      const signed = ours.cmsSign(b16, leaf, key); const env = ours.cmsEncrypt(b16, [leaf])
      const p12 = ours.pkcs12Export(leaf, key, 'pw')
      Object.assign(fns, {
        zuc256Mac: [b32, new Uint8Array(25), b16, 8],
        'Sm9SignMasterKey.fromBytes': [b32], 'Sm9SignMasterPublicKey.fromBytes': [sm9s.publicKey().toBytes()],
        'Sm9SigningKey.fromBytes': [alice.toBytes(), sm9s.publicKey()], 'Sm9EncryptMasterKey.fromBytes': [b32],
        'Sm9EncryptMasterPublicKey.fromBytes': [sm9e.publicKey().toBytes()], 'Sm9EncryptPrivateKey.fromBytes': [bob.toBytes(), sm9e.publicKey(), b16],
        'sm9s.extract': [b16], 'sm9e.extract': [b16], 'alice.sign': [b16, false], 'bob.decrypt': [sm9e.publicKey().encrypt(b16, b16)],
        'mpks.verify': [b16, b16, alice.sign(b16)], 'mpke.encrypt': [b16, b16, true],
        'Certificate.fromDer': [leaf.toDer()], 'Certificate.fromPem': [leaf.toPem()], 'Certificate.loadAll': [ca.toPem()],
        'CertificateRequest.create': [key, '/CN=x', ['DNS:x']], 'CertificateRequest.fromDer': [csr.toDer()], 'CertificateRequest.fromPem': [csr.toPem()],
        certSelfSigned: [key, '/CN=CA', { days: 10 }], certIssue: [ca, key, pub, '/CN=y', { profile: 'tls-client', sans: ['DNS:y'] }],
        certIssueFromRequest: [ca, key, csr, { days: 5 }], crlIssue: [ca, key, ['01', b16], { number: 2 }],
        verifyChain: [leaf, [ca], { purpose: 'tls-server', host: 'leaf', time: new Date() }],
        cmsSign: [b16, leaf, key, { chain: [ca], detached: false }], cmsVerify: [signed, [ca], { certs: [] }],
        cmsEncrypt: [b16, [leaf], { rfc5652: true }], cmsDecrypt: [env, leaf, key],
        pkcs12Import: [p12, 'pw'], pkcs12Export: [leaf, key, 'pw', { sm: true }]
      })
      Object.assign(objects, { sm9s, sm9e, alice, bob, mpks: sm9s.publicKey(), mpke: sm9e.publicKey(), ca })
    }
    const hasher = new ours.Sm3Hasher()
    const call = (name, args) => {
      const dot = name.indexOf('.')
      if (dot > 0 && objects[name.slice(0, dot)]) return objects[name.slice(0, dot)][name.slice(dot + 1)](...args)
      if (name.startsWith('key.')) return key[name.slice(4)](...args)
      if (name.startsWith('pub.')) return pub[name.slice(4)](...args)
      if (name.startsWith('hasher.')) return hasher[name.slice(7)](...args)
      return get(ours, name)(...args)
    }
    for (const [name, valid] of Object.entries(fns)) {
      assert.ok(run(() => call(name, valid)).ok, `${name} valid arguments`)
      for (let pos = 0; pos <= valid.length; pos++) {
        for (const [kind, value] of Object.entries(TYPES)) {
          const args = valid.slice()
          args[pos] = value
          const r = run(() => call(name, args))
          if (!r.ok) assertTyped(r.e, `${name} arg ${pos} = ${kind}`)
        }
      }
    }
    // the key exchange's options object, field by field
    for (const field of ['initiator', 'privateKey', 'ephemeralPrivateKey', 'peerPublicKey', 'peerEphemeralPublicKey', 'id', 'peerId', 'keyLength', 'peerConfirmation']) {
      for (const [kind, value] of Object.entries(TYPES)) {
        const r = run(() => ours.sm2KeyExchange({ ...fns.sm2KeyExchange[0], [field]: value }))
        if (!r.ok) assertTyped(r.e, `sm2KeyExchange ${field} = ${kind}`)
      }
    }
    // the TLCP client's options, field by field (native; the wasm stand-ins always throw
    // NativeRequiredError): a typed refusal, or a connection (to a closed port) dropped at once
    const tlcp = engineName === 'native' ? require('../js/tlcp.js')(ours) : ours.tlcp
    const base = { host: '127.0.0.1', port: 9, ca: engineName === 'native' ? objects.ca : undefined, servername: 'localhost' }
    for (const field of ['host', 'port', 'ca', 'crls', 'suite', 'clientPair', 'servername', 'nameCheck', 'sni', 'ALPNProtocols', 'timeout', 'socket']) {
      for (const [kind, value] of Object.entries(TYPES)) {
        for (const make of [(o) => tlcp.connect(o), (o) => new tlcp.Agent(o), (o) => tlcp.connector(o)]) {
          const r = run(() => make({ ...base, [field]: value }))
          if (!r.ok) assertTyped(r.e, `tlcp ${field} = ${kind}`)
          else if (typeof r.v.destroy === 'function') { r.v.on?.('error', () => {}); r.v.destroy() }
        }
      }
    }
    for (const v of Object.values(TYPES)) {
      const r = run(() => tlcp.connect(v)); if (!r.ok) assertTyped(r.e, 'tlcp.connect options')
    }
    for (const o of [key, pub, hasher]) { o.free(); assert.throws(() => o.free() || (o.toBytes ? o.toBytes() : o.digest()), /after free/) }
  })

  test(`${engineName}: sm-crypto's own answers on bad input (issue 39's list)`, () => {
    for (const v of [123, null, undefined, '', 'zz', '04' + '11'.repeat(64), KEY.publicKey + '00']) {
      assert.equal(ours.sm2.verifyPublicKey(v), theirs.sm2.verifyPublicKey(v), String(v))
    }
    assert.equal(ours.sm2.doVerifySignature('m', SIG, 123), false)
    assert.throws(() => ours.sm2.doEncrypt('m', 5), /Invalid public key/)
    assert.throws(() => ours.sm2.getPublicKeyFromPrivateKey(7), TypeError)
    assert.throws(() => ours.sm2.getPublicKeyFromPrivateKey('1'.repeat(65)), /longer than 64/)
    assert.throws(() => ours.sm4.encrypt(12345, K16), TypeError) // a number is not a length
    assert.throws(() => ours.sm3(123), TypeError)
    assert.equal(ours.sm4.decrypt('', K16), theirs.sm4.decrypt('', K16))
    assert.deepEqual(ours.sm4.decrypt('', K16, { output: 'array' }), theirs.sm4.decrypt('', K16, { output: 'array' }))
    // {padding: null} does not pad, as sm-crypto
    const block = new Array(16).fill(65)
    assert.equal(ours.sm4.encrypt(block, K16, { padding: null }), theirs.sm4.encrypt(block, K16, { padding: null }))
    // non-UTF-8 plaintext: sm-crypto's doDecrypt throws, so do we
    const bad = theirs.sm2.doEncrypt([0xff, 0xfe, 0x80], KEY.publicKey)
    assert.throws(() => theirs.sm2.doDecrypt(bad, KEY.privateKey), /Malformed UTF-8/)
    assert.throws(() => ours.sm2.doDecrypt(bad, KEY.privateKey), /Malformed UTF-8/)
    assert.deepEqual(ours.sm2.doDecrypt(bad, KEY.privateKey, 1, { output: 'array' }), [0xff, 0xfe, 0x80])
    // U+40000-U+FFFFF: sm-crypto's sm3/sm4 encoder drops bits of the lead byte (its sm2 does
    // not); ours is standard UTF-8 in all three, i.e. sm-crypto's result for the bytes
    for (const text of ['\u{40000}', 'x\u{50000}y', '\u{FFFFF}']) {
      const bytes = Array.from(Buffer.from(text, 'utf8'))
      assert.notEqual(theirs.sm3(text), theirs.sm3(bytes), 'sm-crypto bug no longer there?')
      assert.equal(ours.sm3(text), theirs.sm3(bytes))
      assert.equal(ours.sm4.encrypt(text, K16), theirs.sm4.encrypt(bytes, K16))
    }
    for (const text of ['\u{1F600}', '\u{10FFFF}']) assert.equal(ours.sm3(text), theirs.sm3(text)) // outside the range: the same
    // lone surrogates: sm-crypto throws, so do we
    assert.throws(() => theirs.sm3('\ud800'))
    assert.throws(() => ours.sm3('\ud800'), /not supported/)
  })
}
