// The sm-crypto layer (exports sm2, sm3, sm4) against the real npm sm-crypto 0.5.8:
// its outputs open with ours and ours with its, every mode and option, random inputs.
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const crypto = require('node:crypto')
const ours = require(process.env.SHANGMI_PKG || path.join(__dirname, '..'))
const theirs = require('sm-crypto')
const { BigInteger } = require('jsbn') // sm-crypto's own dependency

const rndHex = (n) => crypto.randomBytes(n).toString('hex')
const rndText = (n) => Array.from({ length: n }, () => String.fromCharCode(0x20 + crypto.randomInt(0x5f))).join('') + '中文✓'

test('sm3: plain and HMAC, strings and arrays', () => {
  for (const n of [0, 1, 55, 64, 65, 300]) {
    const s = rndText(n)
    assert.equal(ours.sm3(s), theirs.sm3(s))
    const a = Array.from(crypto.randomBytes(n))
    assert.equal(ours.sm3(a), theirs.sm3(a))
    assert.equal(ours.sm3(Uint8Array.from(a)), theirs.sm3(Uint8Array.from(a)))
    const key = rndHex(1 + crypto.randomInt(100))
    assert.equal(ours.sm3(s, { key }), theirs.sm3(s, { key }))
    assert.equal(ours.sm3(a, { key: Array.from(Buffer.from(key, 'hex')), mode: 'hmac' }), theirs.sm3(a, { key }))
  }
  assert.throws(() => ours.sm3('x', { mode: 'other', key: '00' }), /invalid mode/)
  assert.throws(() => ours.sm3('x', { mode: 'hmac' }), /invalid key/)
})

test('sm4: ecb/cbc, padding, output forms, both directions', () => {
  for (const n of [0, 1, 15, 16, 17, 100]) {
    const key = rndHex(16); const iv = rndHex(16); const text = rndText(n)
    for (const opts of [{}, { mode: 'cbc', iv }, { padding: 'pkcs#5' }, { mode: 'cbc', iv, padding: 'pkcs#7' }]) {
      const c1 = ours.sm4.encrypt(text, key, opts)
      assert.equal(c1, theirs.sm4.encrypt(text, key, opts))
      assert.equal(theirs.sm4.decrypt(c1, key, opts), text)
      assert.equal(ours.sm4.decrypt(c1, key, opts), text)
      const arr = Array.from(crypto.randomBytes(n))
      const c2 = ours.sm4.encrypt(arr, Array.from(Buffer.from(key, 'hex')), { ...opts, output: 'array' })
      assert.deepEqual(c2, theirs.sm4.encrypt(arr, key, { ...opts, output: 'array' }))
      assert.deepEqual(ours.sm4.decrypt(c2, key, { ...opts, output: 'array' }), arr)
    }
    const blocks = Array.from(crypto.randomBytes(32))
    for (const opts of [{ padding: 'none' }, { mode: 'cbc', iv, padding: 'none' }]) {
      const c = ours.sm4.encrypt(blocks, key, { ...opts, output: 'array' })
      assert.deepEqual(c, theirs.sm4.encrypt(blocks, key, { ...opts, output: 'array' }))
      assert.deepEqual(theirs.sm4.decrypt(c, key, { ...opts, output: 'array' }), blocks)
    }
  }
  assert.throws(() => ours.sm4.encrypt('x', '00'), /key is invalid/)
  assert.throws(() => ours.sm4.encrypt('x', rndHex(16), { mode: 'cbc', iv: '00' }), /iv is invalid/)
})

test('sm2: keys, encryption in both cipher modes, both directions', () => {
  for (let i = 0; i < 6; i++) {
    const a = ours.sm2.generateKeyPairHex()
    const b = theirs.sm2.generateKeyPairHex()
    assert.equal(a.publicKey, theirs.sm2.getPublicKeyFromPrivateKey(a.privateKey))
    assert.equal(ours.sm2.getPublicKeyFromPrivateKey(b.privateKey), b.publicKey)
    assert.equal(ours.sm2.compressPublicKeyHex(b.publicKey), theirs.sm2.compressPublicKeyHex(b.publicKey))
    assert.ok(ours.sm2.comparePublicKeyHex(b.publicKey, theirs.sm2.compressPublicKeyHex(b.publicKey)))
    assert.ok(ours.sm2.verifyPublicKey(b.publicKey))
    const text = rndText(1 + crypto.randomInt(200))
    for (const mode of [0, 1]) {
      const c1 = ours.sm2.doEncrypt(text, b.publicKey, mode)
      assert.equal(theirs.sm2.doDecrypt(c1, b.privateKey, mode), text)
      const c2 = theirs.sm2.doEncrypt(text, a.publicKey, mode)
      assert.equal(ours.sm2.doDecrypt(c2, a.privateKey, mode), text)
      const bytes = Array.from(crypto.randomBytes(1 + crypto.randomInt(100)))
      const c3 = theirs.sm2.doEncrypt(bytes, a.publicKey, mode)
      assert.deepEqual(ours.sm2.doDecrypt(c3, a.privateKey, mode, { output: 'array' }), bytes)
      // the wrong mode fails the C3 check: '' (or []) as sm-crypto returns
      assert.equal(ours.sm2.doDecrypt(c2, a.privateKey, 1 - mode), '')
      assert.deepEqual(ours.sm2.doDecrypt(c2, a.privateKey, 1 - mode, { output: 'array' }), [])
    }
    // default cipherMode is 1 (C1C3C2) on both sides
    assert.equal(theirs.sm2.doDecrypt(ours.sm2.doEncrypt(text, b.publicKey), b.privateKey), text)
  }
})

test('sm2: signatures with {hash, der, userId, publicKey}, both directions', () => {
  for (let i = 0; i < 4; i++) {
    const a = ours.sm2.generateKeyPairHex()
    const msg = rndText(crypto.randomInt(100))
    const optsList = [{}, { hash: true }, { der: true }, { hash: true, der: true },
      { hash: true, userId: 'alice@example.com' }, { hash: true, der: true, publicKey: a.publicKey },
      { hash: false }, { hash: false, der: true }]
    for (const opts of optsList) {
      const s1 = ours.sm2.doSignature(msg, a.privateKey, opts)
      assert.ok(theirs.sm2.doVerifySignature(msg, s1, a.publicKey, opts), JSON.stringify(opts))
      assert.ok(ours.sm2.doVerifySignature(msg, s1, a.publicKey, opts))
      const s2 = theirs.sm2.doSignature(msg, a.privateKey, opts)
      assert.ok(ours.sm2.doVerifySignature(msg, s2, a.publicKey, opts), JSON.stringify(opts))
      assert.ok(!ours.sm2.doVerifySignature(msg + 'x', s2, a.publicKey, opts))
      if (!opts.der) assert.equal(s1.length, 128)
    }
    // a 32-byte digest as an array with hash: false
    const digest = Array.from(crypto.randomBytes(32))
    const s = ours.sm2.doSignature(digest, a.privateKey, { hash: false })
    assert.ok(theirs.sm2.doVerifySignature(digest, s, a.publicKey, { hash: false }))
  }
  assert.ok(!ours.sm2.doVerifySignature('m', 'zz', ours.sm2.generateKeyPairHex().publicKey, {}))
  assert.ok(!ours.sm2.doVerifySignature('m', '00'.repeat(64), '04' + '11'.repeat(64), {}))
})

test('sm2.getPoint and pointPool: entries are consumed as the nonce, signatures byte-identical to sm-crypto', () => {
  const a = theirs.sm2.generateKeyPairHex()
  for (const opts of [{}, { der: true }, { hash: false }, { userId: 'bob@example.com', publicKey: a.publicKey }]) {
    for (const make of [theirs.sm2.getPoint, ours.sm2.getPoint]) {
      const points = [make(), make(), make()]
      // sm-crypto computes with jsbn BigIntegers: ours (BigInt k, x1) are converted for it
      const poolA = points.map((p) => typeof p.k === 'bigint' ? { ...p, k: new BigInteger(p.k.toString(16), 16), x1: new BigInteger(p.x1.toString(16), 16) } : p)
      const poolB = points.slice()
      const msg = rndText(20)
      const s1 = theirs.sm2.doSignature(msg, a.privateKey, { ...opts, pointPool: poolA })
      const s2 = ours.sm2.doSignature(msg, a.privateKey, { ...opts, pointPool: poolB })
      assert.equal(s2, s1, JSON.stringify(opts)) // the same k: the same signature
      assert.equal(poolB.length, 2) // one entry popped, as sm-crypto
      assert.equal(poolA.length, 2)
      assert.ok(theirs.sm2.doVerifySignature(msg, s2, a.publicKey, opts))
    }
  }
  const p = ours.sm2.getPoint()
  assert.equal(p.k.toString(16).padStart(64, '0'), p.privateKey)
  assert.equal(p.x1.toString(16).padStart(64, '0'), p.publicKey.substr(2, 64))
  assert.equal(theirs.sm2.getPublicKeyFromPrivateKey(p.privateKey), p.publicKey)
  // an empty pool draws a fresh nonce; a non-point entry is a TypeError
  assert.ok(ours.sm2.doVerifySignature('m', ours.sm2.doSignature('m', a.privateKey, { pointPool: [] }), a.publicKey))
  assert.throws(() => ours.sm2.doSignature('m', a.privateKey, { pointPool: [{}] }), TypeError)
})

test('sm2.generateKeyPairHex(a, b, c): the seed and generator forms give sm-crypto\'s keys', () => {
  const counter = () => { let i = 0; return { nextBytes (arr) { for (let j = 0; j < arr.length; j++) arr[j] = (i++ * 151 + 7) & 0xff } } }
  const forms = [[256, counter()], [255, counter()], [100, counter()], [8, counter()],
    [rndHex(32), 16], [rndHex(40), 16], ['123456789012345678901234567890'], ['zz9', 36], ['-1f', 16],
    [Array.from(crypto.randomBytes(32))], [[0x80, 1, 2]]]
  for (const args of forms) {
    const ourArgs = args.map((x) => (x && x.nextBytes) ? counter() : x)
    assert.deepEqual(ours.sm2.generateKeyPairHex(...ourArgs), theirs.sm2.generateKeyPairHex(...args), JSON.stringify(args))
  }
  const fresh = ours.sm2.generateKeyPairHex()
  assert.equal(theirs.sm2.getPublicKeyFromPrivateKey(fresh.privateKey), fresh.publicKey)
  // jsbn's probable-prime form is refused, not silently ignored
  assert.throws(() => ours.sm2.generateKeyPairHex(256, 10, counter()), /not supported/)
  assert.throws(() => ours.sm2.generateKeyPairHex(256, {}), TypeError)
})

test('SM2 key exchange (GB/T 32918.3): both sides derive one key and check each other\'s confirmation', () => {
  const A = ours.Sm2PrivateKey.generate(); const B = ours.Sm2PrivateKey.generate()
  const RA = ours.Sm2PrivateKey.generate(); const RB = ours.Sm2PrivateKey.generate()
  const ida = Buffer.from('alice@example.com'); const idb = Buffer.from('bob@example.com')
  const side = (initiator, own, eph, id, peer, peerEph, peerId, peerConfirmation) => ours.sm2KeyExchange({
    initiator, privateKey: own.toBytes(), ephemeralPrivateKey: eph.toBytes(), id, peerPublicKey: peer.publicKey().toBytes(),
    peerEphemeralPublicKey: peerEph.publicKey().toBytes(), peerId, keyLength: 48, peerConfirmation
  })
  const b = side(false, B, RB, idb, A, RA, ida)
  const a = side(true, A, RA, ida, B, RB, idb, b.confirmation)
  assert.equal(a.key.length, 48)
  assert.deepEqual(a.key, b.key)
  side(false, B, RB, idb, A, RA, ida, a.confirmation)
  assert.throws(() => side(false, B, RB, idb, A, RA, ida, b.confirmation), /confirmation/)
  const other = side(true, A, RA, Buffer.from('mallory'), B, RB, idb)
  assert.notDeepEqual(other.key, b.key)
})
