// SM9 and ZUC (issue 39 item 5) on each engine present: published vectors, round trips,
// refusals. SM9 and ZUC-256 are native-only (the wasm module would exceed its 400 KB cap:
// see bindings/wasm/Cargo.toml); on the wasm engine they throw NativeRequiredError.
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const fs = require('node:fs')
const makeShangmi = require('../js/api.js')

const engines = [['wasm', makeShangmi(require('../pkg-node/shangmi_wasm.js'), 'wasm')]]
const nativeFile = path.join(__dirname, '..', 'native', `shangmi.${process.platform}-${process.arch}.node`)
if (fs.existsSync(nativeFile)) engines.push(['native', makeShangmi(require(nativeFile), 'native')])
if (process.env.SHANGMI_REQUIRE_NATIVE === '1') assert.ok(engines.length === 2, 'no native addon at ' + nativeFile)

const hex = (s) => Uint8Array.from(Buffer.from(s, 'hex'))
const toHex = (u) => Buffer.from(u).toString('hex')
const utf8 = (s) => new TextEncoder().encode(s)
const b32 = (s) => hex(s.padStart(64, '0'))

for (const [name, sm] of engines) {
  // 3GPP TS 35.223 (ETSI/SAGE "Specification of the 3GPP Confidentiality and Integrity
  // Algorithms 128-EEA3 & 128-EIA3", Document 3: Implementor's Test Data): EEA3 test set 1,
  // EIA3 test sets 1 and 2 (the values of zuc/tests/vectors.rs).
  test(`${name}: ZUC 128-EEA3 / 128-EIA3, 3GPP test sets`, () => {
    const key = hex('173d14ba5003731d7a60049470f00a29')
    const pt = hex('6cf65340735552ab0c9752fa6f9025fe0bd675d9005875b200')
    const ct = hex('a6c85fc66afb8533aafc2518dfe784940ee1e4b030238cc800')
    assert.equal(toHex(sm.zucEea3(key, 0x66035492, 0xF, 0, pt, 193)), toHex(ct))
    assert.equal(toHex(sm.zucEea3(key, 0x66035492, 0xF, 0, ct, 193)), toHex(pt))
    assert.equal(toHex(sm.zucEia3(new Uint8Array(16), 0, 0, 0, new Uint8Array(1), 1)), 'c8a9595e')
    const k2 = hex('47054125561eb2dda94059da05097850')
    assert.equal(toHex(sm.zucEia3(k2, 0x561EB2DD, 0x14, 0, new Uint8Array(12), 90)), '6719a088')
    // a whole-byte length by default; the other direction gives another keystream
    const all = sm.zucEea3(key, 1, 2, 0, pt)
    assert.equal(all.length, pt.length)
    assert.notEqual(toHex(sm.zucEea3(key, 1, 2, 1, pt)), toHex(all))
    assert.throws(() => sm.zucEea3(key, 0, 32, 0, pt), RangeError) // BEARER has 5 bits
    assert.throws(() => sm.zucEea3(key, 0, 1, 2, pt), RangeError) // DIRECTION has 1
    assert.throws(() => sm.zucEea3(key, 2 ** 32, 1, 0, pt), RangeError) // COUNT has 32
    assert.throws(() => sm.zucEea3(key, 0, 1, 0, pt, 7), /ZUC/) // not the bit count rounded up
    assert.throws(() => sm.zucEea3(key, 0, 1, 0, pt, pt.length * 8 + 1), RangeError)
    assert.throws(() => sm.zucEea3(key.subarray(1), 0, 1, 0, pt), /16 bytes/)
  })

  // ZUC-128 keystream test set 1 (GM/T 0001.1-2012 Annex A / 3GPP Document 3, section 3):
  // zero key and IV, z1 = 27bede74, z2 = 018082da. ZUC-256 (native only): all-zero key and
  // IV, z1 = 58d03ad6 ("The ZUC-256 Stream Cipher", section 4).
  test(`${name}: ZUC-128 keystream; ZUC-256 and its MACs`, () => {
    const z = sm.zucKeystream(new Uint8Array(16), new Uint8Array(16), 8)
    assert.equal(toHex(z), '27bede74018082da')
    // test set 2: all-ones key and IV, z1 z2 = 0657cfa0 7096398b
    assert.equal(toHex(sm.zucKeystream(new Uint8Array(16).fill(0xff), new Uint8Array(16).fill(0xff), 8)), '0657cfa07096398b')
    const m = utf8('plaintext')
    assert.deepEqual(sm.zucApply(new Uint8Array(16), new Uint8Array(16), sm.zucApply(new Uint8Array(16), new Uint8Array(16), m)), m)
    assert.throws(() => sm.zucApply(new Uint8Array(16), new Uint8Array(25), m), /ZUC/)
    if (name === 'native') {
      assert.equal(toHex(sm.zucKeystream(new Uint8Array(32), new Uint8Array(25), 4)), '58d03ad6')
      for (const n of [4, 8, 16]) assert.equal(sm.zuc256Mac(new Uint8Array(32), new Uint8Array(25), m, n).length, n)
      assert.throws(() => sm.zuc256Mac(new Uint8Array(32), new Uint8Array(25), m, 5), RangeError)
    } else {
      assert.throws(() => sm.zucKeystream(new Uint8Array(32), new Uint8Array(25), 4), sm.NativeRequiredError)
      assert.throws(() => sm.zuc256Mac(new Uint8Array(32), new Uint8Array(25), m), sm.NativeRequiredError)
    }
  })

  // GB/T 38635.2 (GM/T 0044-2016 part 5) worked examples, as in sm9/src/kat_tests.rs:
  // A, signature: ks, ID "Alice", M "Chinese IBS standard", h and S (the standard's r).
  test(`${name}: SM9 signature, GB/T 38635 example`, { skip: name === 'wasm' && 'SM9 is native-only' }, () => {
    const master = sm.Sm9SignMasterKey.fromBytes(b32('0130E78459D78545CB54C587E02CF480CE0B66340F319F348A1D5B1F2DC5F4'))
    const mpk = master.publicKey()
    const msg = utf8('Chinese IBS standard')
    const h = '823c4b21e4bd2dfe1ed92c606653e996668563152fc33f55d7bfbb9bd9705adb'
    const S = '0473bf96923ce58b6ad0e13e9643a406d8eb98417c50ef1b29cef9adb48b6d598c856712f1c2e0968ab7769f42a99586aed139d5b8b3e15891827cc2aced9baa05'
    const sig = hex(h + S)
    assert.equal(mpk.verify(utf8('Alice'), msg, sig), true)
    assert.equal(mpk.verify(utf8('Alicf'), msg, sig), false)
    assert.equal(mpk.verify(utf8('Alice'), utf8('Chinese IBS standarD'), sig), false)
    assert.equal(mpk.verify(utf8('Alice'), msg, sig.subarray(1)), false) // unreadable: false
    // our signatures (random r) verify, in both forms, after the keys' encodings
    const alice = master.extract(utf8('Alice'))
    const mpk2 = sm.Sm9SignMasterPublicKey.fromBytes(mpk.toBytes())
    const alice2 = sm.Sm9SigningKey.fromBytes(alice.toBytes(), mpk2)
    for (const der of [true, false]) {
      const s = alice2.sign(msg, der)
      assert.equal(s[0] === 0x30, der)
      assert.equal(mpk.verify(utf8('Alice'), msg, s), true)
      assert.equal(mpk.verify(utf8('Bob'), msg, s), false)
    }
    assert.equal(sm.Sm9SignMasterKey.generate().toBytes().length, 32)
    assert.throws(() => sm.Sm9SignMasterPublicKey.fromBytes(new Uint8Array(128)), /SM9/)
    assert.throws(() => sm.Sm9SignMasterKey.fromBytes(new Uint8Array(32)), /SM9/) // ks = 0
    assert.throws(() => sm.Sm9SigningKey.fromBytes(alice.toBytes(), mpk.toBytes()), TypeError)
    alice.free()
    assert.throws(() => alice.sign(msg), /after free/)
  })

  // C and D: ke, ID "Bob": Ppub-e, deB, and the XOR-mode ciphertext of "Chinese IBE standard".
  test(`${name}: SM9 encryption, GB/T 38635 example`, { skip: name === 'wasm' && 'SM9 is native-only' }, () => {
    const master = sm.Sm9EncryptMasterKey.fromBytes(b32('01EDEE3778F441F8DEA3D9FA0ACC4E07EE36C93F9A08618AF4AD85CEDE1C22'))
    const mpk = master.publicKey()
    assert.equal(toHex(mpk.toBytes()), '787ed7b8a51f3ab84e0a66003f32da5c720b17eca7137d39abc66e3c80a892ff769de61791e5adc4b9ff85a31354900b202871279a8c49dc3f220f644c57a7b1')
    const bob = master.extract(utf8('Bob'))
    assert.equal(toHex(bob.toBytes().subarray(1)), '94736acd2c8c8796cc4785e938301a139a059d3537b6414140b2d31eecf41683115bae85f5d8bc6c3dbd9e5342979acccf3c2f4f28420b1cb4f8c0b59a19b1587aa5e47570da7600cd760a0cf7beaf71c447f3844753fe74fa7ba92ca7d3b55f27538a62e7f7bfb51dce08704796d94c9d56734f119ea44732b50e31cdeb75c1')
    const ct = hex('2445471164490618e1ee20528ff1d545b0f14c8bcaa44544f03dab5dac07d8ff42ffca97d57cddc05ea405f2e586feb3a6930715532b8000759f13059ed59ac0ba672387bcd6de5016a158a52bb2e7fc429197bcab70b25afee37a2b9db9f3671b5f5b0e951489682f3e64e1378cdd5da9513b1c')
    assert.equal(new TextDecoder().decode(bob.decrypt(ct)), 'Chinese IBE standard')
    for (const i of [0, 64, 96, ct.length - 1]) {
      const bad = ct.slice(); bad[i] ^= 1
      assert.throws(() => bob.decrypt(bad), /SM9/)
    }
    // round trips, both forms; another identity cannot decrypt
    const mpk2 = sm.Sm9EncryptMasterPublicKey.fromBytes(mpk.toBytes())
    for (const der of [false, true]) {
      const c = mpk2.encrypt(utf8('Bob'), utf8('secret message'), der)
      assert.equal(c[0] === 0x30, der)
      assert.equal(new TextDecoder().decode(bob.decrypt(c)), 'secret message')
      assert.throws(() => master.extract(utf8('Carol')).decrypt(c), /SM9/)
    }
    const same = sm.Sm9EncryptPrivateKey.fromBytes(bob.toBytes(), mpk2, utf8('Bob'))
    assert.equal(new TextDecoder().decode(same.decrypt(mpk.encrypt(utf8('Bob'), utf8('y')))), 'y')
    assert.throws(() => sm.Sm9EncryptPrivateKey.fromBytes(new Uint8Array(129), mpk2, utf8('Bob')), /SM9/)
  })

  if (name === 'wasm') {
    test('wasm: SM9 throws NativeRequiredError', () => {
      assert.throws(() => sm.Sm9SignMasterKey.generate(), sm.NativeRequiredError)
      assert.throws(() => sm.Sm9EncryptMasterKey.fromBytes(new Uint8Array(32)), sm.NativeRequiredError)
    })
  }
}
