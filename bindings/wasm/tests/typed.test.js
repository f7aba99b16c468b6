// The typed Uint8Array API of the wasm package: published vectors (sources named per test),
// round trips and error paths.
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const sm = require(process.env.SHANGMI_PKG || path.join(__dirname, '..'))

const H = (s) => Uint8Array.from(Buffer.from(s, 'hex'))
const hex = (u) => Buffer.from(u).toString('hex')
const rnd = (n) => Uint8Array.from(require('node:crypto').randomBytes(n))

test('SM3: GB/T 32905-2016 Appendix A.1/A.2; HMAC-SM3: GM/T 0042-2015 D.3 (openssl evpmac_sm3.txt)', () => {
  assert.equal(hex(sm.sm3Digest(Buffer.from('abc'))), '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0')
  assert.equal(hex(sm.sm3Digest(Buffer.from('abcd'.repeat(16)))), 'debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732')
  const h = new sm.Sm3Hasher()
  h.update(Buffer.from('a')); h.update(Buffer.from('bc'))
  assert.equal(hex(h.digest()), '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0')
  h.free()
  assert.equal(hex(sm.hmacSm3(new Uint8Array(32).fill(0x0b), Buffer.from('Hi There'))),
    'c0ba18c68b90c88bc07de794bfc7d2c8d19ec31ed8773bc2b390c9604e0be11e')
})

test('SM4: GB/T 32907 A.1 (ECB), RFC 8998 A.1/A.2 (GCM/CCM), GB/T 17964 / IEEE 1619 XTS (openssl evpciph_sm4.txt)', () => {
  const K = H('0123456789abcdeffedcba9876543210')
  assert.equal(hex(sm.sm4EcbEncrypt(K, K, false)), '681edf34d206965e86b3e94f536e4246')
  const pt = H('aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccddddddddddddddddeeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa')
  const iv = H('00001234567800000000abcd'); const aad = H('feedfacedeadbeeffeedfacedeadbeefabaddad2')
  const gcm = sm.sm4GcmEncrypt(K, iv, pt, aad)
  assert.equal(hex(gcm), '17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d83de3541e4c2b58177e065a9bf7b62ec')
  assert.deepEqual(sm.sm4GcmDecrypt(K, iv, gcm, aad), pt)
  gcm[0] ^= 1
  assert.throws(() => sm.sm4GcmDecrypt(K, iv, gcm, aad), /invalid tag/)
  const ccm = sm.sm4CcmEncrypt(K, iv, pt, aad)
  assert.equal(hex(ccm), '48af93501fa62adbcd414cce6034d895dda1bf8f132f042098661572e7483094fd12e518ce062c98acee28d95df4416bed31a2f04476c18bb40c84a74b97dc5b16842d4fa186f56ab33256971fa110f4')
  assert.deepEqual(sm.sm4CcmDecrypt(K, iv, ccm, aad), pt)
  const xk = H('2B7E151628AED2A6ABF7158809CF4F3C000102030405060708090A0B0C0D0E0F')
  const tw = H('F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF')
  const xp = H('6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E5130C81C46A35CE411E5FBC1191A0A52EFF69F2445DF4F9B17')
  assert.equal(hex(sm.sm4XtsEncrypt(xk, tw, xp, true)).toUpperCase(), 'E9538251C71D7B80BBE4483FEF497BD12C5C581BD6242FC51E08964FB4F60FDB0BA42F63499279213D318D2C11F6886E903BE7F93A1B3479')
  const ieee = sm.sm4XtsEncrypt(xk, tw, xp)
  assert.equal(hex(ieee).toUpperCase(), 'E9538251C71D7B80BBE4483FEF497BD1B3DB1A3E60408C575D63FF7DB39F83260869F9E2585FEC9F0B863BF8FD784B8627D16C0DB6D2CFC7')
  assert.deepEqual(sm.sm4XtsDecrypt(xk, tw, ieee), xp)
  // CTR: draft-ribose-cfrg-sm4 (openssl evpciph_sm4.txt), first two blocks
  assert.ok(hex(sm.sm4Ctr(K, K, pt)).toUpperCase().startsWith('C2B4759E78AC3CF43D0852F4E8D5F9FD7256E8A5FCB65A350EE00630912E4449'))
  for (const n of [0, 1, 16, 33, 1000]) {
    const k = rnd(16); const v = rnd(16); const m = rnd(n)
    assert.deepEqual(sm.sm4CbcDecrypt(k, v, sm.sm4CbcEncrypt(k, v, m)), m)
    assert.deepEqual(sm.sm4Ctr(k, v, sm.sm4Ctr(k, v, m)), m)
    assert.equal(sm.sm4Cmac(k, m).length, 16)
  }
  assert.throws(() => sm.sm4CbcEncrypt(rnd(15), rnd(16), rnd(3)), /key is invalid/)
  assert.throws(() => sm.sm4CbcDecrypt(rnd(16), rnd(16), rnd(17)))
})

test('SM2: GB/T 32918.5 Annex C ciphertext decrypts; sign/verify/encrypt round trips', () => {
  const d = H('3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8')
  const key = sm.Sm2PrivateKey.fromBytes(d)
  const pub = key.publicKey()
  assert.equal(hex(pub.toBytes()), '0409f9df311e5421a150dd7d161e4bc5c672179fad1833fc076bb08ff356f35020ccea490ce26775a52dc6ea718cc1aa600aed05fbf35e084a6632f6072da9ad13')
  const ct = H('04' + '04ebfc718e8d1798620432268e77feb6415e2ede0e073c0f4f640ecd2e149a73' +
    'e858f9d81e5430a57b36daab8f950a3c64e6ee6a63094d99283aff767e124df0' +
    '59983c18f809e262923c53aec295d30383b54e39d609d160afcb1908d0bd8766' + '21886ca989ca9c7d58087307ca93092d651efa')
  assert.equal(Buffer.from(key.decrypt(ct)).toString(), 'encryption standard')
  ct[ct.length - 1] ^= 1
  assert.throws(() => key.decrypt(ct))
  const k2 = sm.Sm2PrivateKey.generate()
  const p2 = k2.publicKey()
  const msg = Buffer.from('message digest')
  for (const der of [false, true]) {
    for (const id of [undefined, Buffer.from('ALICE123@YAHOO.COM')]) {
      const s = k2.sign(msg, id, der)
      assert.ok(p2.verify(s, msg, id))
      assert.ok(!p2.verify(s, Buffer.from('other'), id))
    }
  }
  for (const layout of ['C1C3C2', 'C1C2C3', 'C1C3C2_RAW', 'C1C2C3_RAW', 'C1C3C2_COMPRESSED', 'C1C2C3_COMPRESSED', 'ASN1']) {
    const c = p2.encrypt(msg, layout)
    assert.deepEqual(Buffer.from(k2.decrypt(c, layout)), msg)
  }
  assert.equal(sm.Sm2PrivateKey.fromPem(k2.toPem()).toPem(), k2.toPem())
  assert.deepEqual(sm.Sm2PublicKey.fromPem(p2.toPem()).toBytes(), p2.toBytes())
  assert.deepEqual(sm.Sm2PublicKey.fromBytes(p2.toBytes(true)).toBytes(), p2.toBytes())
  assert.throws(() => sm.Sm2PrivateKey.fromBytes(new Uint8Array(32)))
  assert.throws(() => sm.Sm2PublicKey.fromBytes(rnd(65)))
  assert.ok(!p2.verify(rnd(70), msg))
  k2.free(); key.free()
})

test('engine: the one asked for (SHANGMI_ENGINE), the native addon when CI requires it', () => {
  if (process.env.SHANGMI_ENGINE) assert.equal(sm.engine, process.env.SHANGMI_ENGINE)
  else if (process.env.SHANGMI_REQUIRE_NATIVE === '1') assert.equal(sm.engine, 'native')
  assert.ok(['native', 'wasm'].includes(sm.engine))
})

test('SM2 key exchange: emmansun/gmsm v0.44.0 TestSM2SharedKeyVectors case 1 (as sm2/tests/kx_vectors.rs), confirmations checked', () => {
  const dA = H('e04c3fd77408b56a648ad439f673511a2ae248def3bab26bdfc9cdbd0ae9607e')
  const rA = H('6fe0bac5b09d3ab10f724638811c34464790520e4604e71e6cb0e5310623b5b1')
  const dB = H('7a1136f60d2c5531447e5a3093078c2a505abf74f33aefed927ac0a5b27e7dd7')
  const rB = H('d0233bdbb0b8a7bfe1aab66132ef06fc4efaedd5d5000692bc21185242a31f6f')
  const key = '1ad809ebc56ddda532020c352e1e60b121ebeb7b4e632db4dd90a362cf844f8bba85140e30984ddb581199bf5a9dda22'
  const pub = (d) => sm.Sm2PrivateKey.fromBytes(d).publicKey().toBytes()
  const ida = Buffer.from('Alice'); const idb = Buffer.from('Bob')
  const b = sm.sm2KeyExchange({ initiator: false, privateKey: dB, ephemeralPrivateKey: rB, id: idb, peerPublicKey: pub(dA), peerEphemeralPublicKey: pub(rA), peerId: ida, keyLength: 48 })
  const a = sm.sm2KeyExchange({ initiator: true, privateKey: dA, ephemeralPrivateKey: rA, id: ida, peerPublicKey: pub(dB), peerEphemeralPublicKey: pub(rB), peerId: idb, keyLength: 48, peerConfirmation: b.confirmation })
  assert.equal(hex(a.key), key)
  assert.equal(hex(b.key), key)
  sm.sm2KeyExchange({ initiator: false, privateKey: dB, ephemeralPrivateKey: rB, id: idb, peerPublicKey: pub(dA), peerEphemeralPublicKey: pub(rA), peerId: ida, keyLength: 48, peerConfirmation: a.confirmation })
  assert.throws(() => sm.sm2KeyExchange({ initiator: true, privateKey: dA, ephemeralPrivateKey: rA, id: ida, peerPublicKey: pub(dB), peerEphemeralPublicKey: pub(rB), peerId: idb, keyLength: 48, peerConfirmation: a.confirmation }), /confirmation/)
})
