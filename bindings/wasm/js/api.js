// The JavaScript API of the `shangmi` package over an engine: the native addon
// (bindings/node, napi-rs) or the WebAssembly module (bindings/wasm), which export the same
// primitive functions. Every argument is checked here before any call into the engine, so
// a wrong type ends in a TypeError (or sm-crypto's own result or error), never in a wasm
// trap or a native abort. Two faces:
//   - the typed API over Uint8Array (sm3Digest, hmacSm3, Sm3Hasher, sm4*Encrypt/Decrypt,
//     Sm2PrivateKey, Sm2PublicKey, sm2KeyExchange);
//   - `sm2`, `sm3`, `sm4`: npm's sm-crypto 0.5 API, so `require('sm-crypto')` can be replaced.
// Plain script (no import/require) so the same file serves Node (module.exports) and the
// browser (build.sh appends an ES `export`).
'use strict'

function makeShangmi (E, engine) {
  // --- argument checks -----------------------------------------------------------------
  const isBytes = (v) => v instanceof Uint8Array
  const typeName = (v) => v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
  function bytes (v, name) {
    if (!isBytes(v)) throw new TypeError(`${name} must be a Uint8Array, not ${typeName(v)}`)
    return v
  }
  function optBytes (v, name) {
    return v === undefined || v === null ? undefined : bytes(v, name)
  }
  function bool (v, name, dflt) {
    if (v === undefined && dflt !== undefined) return dflt
    if (typeof v !== 'boolean') throw new TypeError(`${name} must be a boolean, not ${typeName(v)}`)
    return v
  }
  function string (v, name, dflt) {
    if (v === undefined && dflt !== undefined) return dflt
    if (typeof v !== 'string') throw new TypeError(`${name} must be a string, not ${typeName(v)}`)
    return v
  }

  const enc = new TextEncoder()
  const decLossy = new TextDecoder('utf-8')
  const decStrict = new TextDecoder('utf-8', { fatal: true })
  const hasBuffer = typeof Buffer === 'function' && typeof Buffer.from === 'function'
  const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
  const HEX_RE = /^[0-9a-fA-F]*$/

  function toHex (u) {
    if (hasBuffer) return Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('hex')
    let s = ''
    for (let i = 0; i < u.length; i++) s += HEX[u[i]]
    return s
  }
  // Hex to bytes; an odd length gets a leading 0 (as sm-crypto's hexToArray). Anything but
  // hex digits is refused (sm-crypto reads them as NaN, i.e. zero bits).
  function fromHex (s, name) {
    if (!HEX_RE.test(s)) throw new Error(`${name} is not a hex string`)
    if (s.length % 2) s = '0' + s
    if (hasBuffer) return new Uint8Array(Buffer.from(s, 'hex'))
    const out = new Uint8Array(s.length / 2)
    for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16)
    return out
  }
  function utf8 (s, name) {
    // sm-crypto throws on lone surrogates ('input is not supported', or URIError in sm2)
    if (typeof s.isWellFormed === 'function' ? !s.isWellFormed() : /\p{Surrogate}/u.test(s)) {
      throw new Error(`${name} is not well-formed UTF-16 (a lone surrogate): input is not supported`)
    }
    return enc.encode(s)
  }
  // A byte array argument of the sm-crypto layer: a Uint8Array (Buffer), or a plain array
  // of numbers (each taken mod 256, as sm-crypto's `& 0xff`).
  function arrayBytes (v, name) {
    if (isBytes(v)) return v
    if (Array.isArray(v)) {
      const out = new Uint8Array(v.length)
      for (let i = 0; i < v.length; i++) {
        const x = v[i]
        if (typeof x !== 'number') throw new TypeError(`${name} must hold numbers, not ${typeName(x)}`)
        out[i] = x
      }
      return out
    }
    throw new TypeError(`${name} must be a string, a Uint8Array or an array of numbers, not ${typeName(v)}`)
  }
  // A message: a string is UTF-8 text, else bytes. A number is refused (never a length).
  const message = (v, name) => typeof v === 'string' ? utf8(v, name) : arrayBytes(v, name)
  // sm-crypto destructures its options with `= {}`: undefined is {}, null a TypeError, any
  // other value is read for its properties.
  function options (o) {
    if (o === undefined) return {}
    if (o === null) throw new TypeError('options must be an object, not null')
    return Object(o)
  }
  function plainArray (u) {
    const a = new Array(u.length)
    for (let i = 0; i < u.length; i++) a[i] = u[i]
    return a
  }
  const wipe = (u) => { if (u) u.fill(0) }

  // --- typed API -------------------------------------------------------------------------
  // The native engine writes bulk results into a Uint8Array allocated here, by V8, rather
  // than returning its own allocation (an external ArrayBuffer per call, which V8 frees
  // late: 1 MiB of SM4-GCM then cost 245 page faults and ran at a third of the engine's
  // speed; measured in bench/README of bindings, issue 39).
  const INTO = typeof E.sm4GcmInto === 'function'
  const outBytes = (n) => new Uint8Array(n)
  function gcm (key, nonce, data, aad, encrypt) {
    bytes(key, 'key'); bytes(nonce, 'nonce'); bytes(data, 'data')
    const a = optBytes(aad, 'aad') || new Uint8Array(0)
    if (!INTO) return (encrypt ? E.sm4GcmEncrypt : E.sm4GcmDecrypt)(key, nonce, data, a)
    if (!encrypt && data.length < 16) throw new Error('invalid tag')
    const out = outBytes(encrypt ? data.length + 16 : data.length - 16)
    try { E.sm4GcmInto(key, nonce, data, a, encrypt, out) } catch (e) { out.fill(0); throw e }
    return out
  }

  const typed = {
    /** SM3 digest (32 bytes). */
    sm3Digest: (data) => E.sm3Digest(bytes(data, 'data')),
    /** HMAC-SM3 (32 bytes). */
    hmacSm3: (key, data) => E.hmacSm3(bytes(key, 'key'), bytes(data, 'data')),
    sm4EcbEncrypt: (key, data, padding) => E.sm4EcbEncrypt(bytes(key, 'key'), bytes(data, 'data'), bool(padding, 'padding', true)),
    sm4EcbDecrypt: (key, data, padding) => E.sm4EcbDecrypt(bytes(key, 'key'), bytes(data, 'data'), bool(padding, 'padding', true)),
    sm4CbcEncrypt: (key, iv, data, padding) => E.sm4CbcEncrypt(bytes(key, 'key'), bytes(iv, 'iv'), bytes(data, 'data'), bool(padding, 'padding', true)),
    sm4CbcDecrypt: (key, iv, data, padding) => E.sm4CbcDecrypt(bytes(key, 'key'), bytes(iv, 'iv'), bytes(data, 'data'), bool(padding, 'padding', true)),
    sm4Ctr: (key, iv, data) => {
      bytes(key, 'key'); bytes(iv, 'iv'); bytes(data, 'data')
      if (!INTO) return E.sm4Ctr(key, iv, data)
      const out = outBytes(data.length)
      E.sm4CtrInto(key, iv, data, out)
      return out
    },
    sm4GcmEncrypt: (key, nonce, data, aad) => gcm(key, nonce, data, aad, true),
    sm4GcmDecrypt: (key, nonce, data, aad) => gcm(key, nonce, data, aad, false),
    sm4CcmEncrypt: (key, nonce, data, aad) => E.sm4CcmEncrypt(bytes(key, 'key'), bytes(nonce, 'nonce'), bytes(data, 'data'), optBytes(aad, 'aad') || new Uint8Array(0)),
    sm4CcmDecrypt: (key, nonce, data, aad) => E.sm4CcmDecrypt(bytes(key, 'key'), bytes(nonce, 'nonce'), bytes(data, 'data'), optBytes(aad, 'aad') || new Uint8Array(0)),
    sm4XtsEncrypt: (key, tweak, data, gb) => E.sm4XtsEncrypt(bytes(key, 'key'), bytes(tweak, 'tweak'), bytes(data, 'data'), bool(gb, 'gb', false)),
    sm4XtsDecrypt: (key, tweak, data, gb) => E.sm4XtsDecrypt(bytes(key, 'key'), bytes(tweak, 'tweak'), bytes(data, 'data'), bool(gb, 'gb', false)),
    sm4Cmac: (key, data) => E.sm4Cmac(bytes(key, 'key'), bytes(data, 'data'))
  }

  /** Incremental SM3. */
  class Sm3Hasher {
    constructor () { this._h = new E.Sm3Hasher() }
    _live () { if (!this._h) throw new Error('Sm3Hasher used after free()'); return this._h }
    /** Absorbs `data`; returns this. */
    update (data) { bytes(data, 'data'); this._live().update(data); return this }
    /** The digest so far (the hasher stays usable). */
    digest () { return this._live().digest() }
    /** Releases the engine's state (optional: the garbage collector does it too). */
    free () { if (this._h && this._h.free) this._h.free(); this._h = null }
  }

  const INNER = Symbol('shangmi.inner')
  function live (o, what) {
    if (!o[INNER]) throw new Error(`${what} used after free()`)
    return o[INNER]
  }
  /** An SM2 public key. */
  class Sm2PublicKey {
    constructor (inner) {
      if (!inner || inner[INNER] !== true) throw new TypeError('use Sm2PublicKey.fromBytes or fromPem')
      this[INNER] = inner.k
    }
    /** From SEC1 (65-byte 04‖x‖y or 33-byte compressed) or 64-byte x‖y. */
    static fromBytes (data) { return new Sm2PublicKey({ [INNER]: true, k: E.Sm2PublicKey.fromBytes(bytes(data, 'data')) }) }
    /** From SPKI PEM. */
    static fromPem (pem) { return new Sm2PublicKey({ [INNER]: true, k: E.Sm2PublicKey.fromPem(string(pem, 'pem')) }) }
    /** SEC1 bytes: 65, or 33 when `compressed`. */
    toBytes (compressed) { return live(this, 'Sm2PublicKey').toBytes(bool(compressed, 'compressed', false)) }
    /** SPKI PEM. */
    toPem () { return live(this, 'Sm2PublicKey').toPem() }
    /** Whether `sig` (r‖s or DER) signs `msg` with identifier `id` (default 1234567812345678). */
    verify (sig, msg, id) {
      return live(this, 'Sm2PublicKey').verify(bytes(sig, 'sig'), bytes(msg, 'msg'), optBytes(id, 'id'))
    }
    /** SM2 encryption: layout "C1C3C2" (default), "C1C2C3", "*_RAW", "*_COMPRESSED", "ASN1". */
    encrypt (msg, layout) {
      return live(this, 'Sm2PublicKey').encrypt(bytes(msg, 'msg'), string(layout, 'layout', 'C1C3C2'))
    }
    free () { const k = this[INNER]; if (k && k.free) k.free(); this[INNER] = null }
  }
  /** An SM2 private key (the engine zeroizes it when freed or collected). */
  class Sm2PrivateKey {
    constructor (inner) {
      if (!inner || inner[INNER] !== true) throw new TypeError('use Sm2PrivateKey.generate, fromBytes or fromPem')
      this[INNER] = inner.k
    }
    static generate () { return new Sm2PrivateKey({ [INNER]: true, k: E.Sm2PrivateKey.generate() }) }
    /** From the 32-byte secret scalar (in [1, n-2]). */
    static fromBytes (d) { return new Sm2PrivateKey({ [INNER]: true, k: E.Sm2PrivateKey.fromBytes(bytes(d, 'd')) }) }
    /** From PEM (PKCS#8 or SEC1). */
    static fromPem (pem) { return new Sm2PrivateKey({ [INNER]: true, k: E.Sm2PrivateKey.fromPem(string(pem, 'pem')) }) }
    toBytes () { return live(this, 'Sm2PrivateKey').toBytes() }
    toPem () { return live(this, 'Sm2PrivateKey').toPem() }
    publicKey () { return new Sm2PublicKey({ [INNER]: true, k: live(this, 'Sm2PrivateKey').publicKey() }) }
    /** Signature of `msg` with identifier `id`: 64-byte r‖s, or DER when `der`. */
    sign (msg, id, der) {
      return live(this, 'Sm2PrivateKey').sign(bytes(msg, 'msg'), optBytes(id, 'id'), bool(der, 'der', false))
    }
    /** Decrypts a ciphertext in `layout` (see Sm2PublicKey.encrypt). */
    decrypt (ct, layout) {
      return live(this, 'Sm2PrivateKey').decrypt(bytes(ct, 'ct'), string(layout, 'layout', 'C1C3C2'))
    }
    free () { const k = this[INNER]; if (k && k.free) k.free(); this[INNER] = null }
  }

  /**
   * SM2 key exchange (GB/T 32918.3) for one party. `privateKey` and `ephemeralPrivateKey`
   * are 32-byte scalars (Sm2PrivateKey.toBytes()), the peer's keys SEC1 bytes; ids are
   * bytes. Returns {key, confirmation}: `confirmation` is S_A or S_B to send; pass the
   * peer's as `peerConfirmation` to have it checked (a mismatch throws).
   */
  function sm2KeyExchange (o) {
    if (o === null || typeof o !== 'object') throw new TypeError('sm2KeyExchange takes an options object')
    const klen = o.keyLength === undefined ? 16 : o.keyLength
    if (!Number.isInteger(klen) || klen < 1 || klen > 1 << 20) throw new RangeError('keyLength must be an integer from 1 to 1048576')
    const r = E.sm2KeyExchange(bool(o.initiator, 'initiator'), bytes(o.privateKey, 'privateKey'),
      bytes(o.ephemeralPrivateKey, 'ephemeralPrivateKey'), optBytes(o.id, 'id') || enc.encode(DEFAULT_ID),
      bytes(o.peerPublicKey, 'peerPublicKey'), bytes(o.peerEphemeralPublicKey, 'peerEphemeralPublicKey'),
      optBytes(o.peerId, 'peerId') || enc.encode(DEFAULT_ID), klen, optBytes(o.peerConfirmation, 'peerConfirmation'))
    return { key: r.slice(0, klen), confirmation: r.slice(klen) }
  }

  // --- SM9 (GM/T 0044, GB/T 38635) ---------------------------------------------------------
  // Keys are held here as bytes (wiped by free()); each call hands them to the engine.
  const KEYBYTES = Symbol('shangmi.bytes')
  function held (o, what) {
    if (!o || !o[KEYBYTES]) throw new Error(`${what} used after free()`)
    return o[KEYBYTES]
  }
  function sm9Of (v, cls, name) {
    if (!(v instanceof cls)) throw new TypeError(`${name} must be an ${cls.name}, not ${typeName(v)}`)
    return v
  }
  // The wasm module is built without SM9 (it would double its size): native only.
  const sm9 = (what) => { if (typeof E.sm9SignMasterGenerate !== 'function') throw new NativeRequiredError(what) }
  const ctor = (inner, cls) => { if (!inner || inner[INNER] !== true) throw new TypeError(`use ${cls}.generate, fromBytes or a master key's extract`) }

  /** An SM9 signing master public key (Ppub-s). */
  class Sm9SignMasterPublicKey {
    constructor (inner) { ctor(inner, 'Sm9SignMasterPublicKey'); this[KEYBYTES] = inner.b }
    /** From x‖y (128 bytes) or 04‖x‖y; checked in G2. */
    static fromBytes (data) { sm9('SM9'); return new Sm9SignMasterPublicKey({ [INNER]: true, b: E.sm9MasterPublicCheck(bytes(data, 'data'), true) }) }
    /** x‖y (128 bytes). */
    toBytes () { return held(this, 'Sm9SignMasterPublicKey').slice() }
    /** Whether `sig` (DER, or h‖S) signs `msg` for the identity `id`. */
    verify (id, msg, sig) { return E.sm9Verify(held(this, 'Sm9SignMasterPublicKey'), bytes(id, 'id'), bytes(msg, 'msg'), bytes(sig, 'sig')) }
    free () { this[KEYBYTES] = null }
  }
  /** A user's SM9 signing key (with its master public key). */
  class Sm9SigningKey {
    constructor (inner) { ctor(inner, 'Sm9SigningKey'); this[KEYBYTES] = inner.b; this._mpk = inner.mpk }
    /** From 04‖x‖y (65 bytes) or x‖y, checked against `masterPublicKey`. */
    static fromBytes (data, masterPublicKey) {
      sm9('SM9')
      const m = held(sm9Of(masterPublicKey, Sm9SignMasterPublicKey, 'masterPublicKey'), 'Sm9SignMasterPublicKey')
      return new Sm9SigningKey({ [INNER]: true, b: E.sm9UserKeyCheck(bytes(data, 'data'), m, true), mpk: m })
    }
    toBytes () { return held(this, 'Sm9SigningKey').slice() }
    masterPublicKey () { held(this, 'Sm9SigningKey'); return new Sm9SignMasterPublicKey({ [INNER]: true, b: this._mpk }) }
    /** Signature of `msg`: DER (default) or, with der = false, h‖x(S)‖y(S) (96 bytes). */
    sign (msg, der) { return E.sm9Sign(held(this, 'Sm9SigningKey'), this._mpk, bytes(msg, 'msg'), bool(der, 'der', true)) }
    free () { wipe(this[KEYBYTES]); this[KEYBYTES] = null }
  }
  /** The signing master key (ks) of a key generation centre. */
  class Sm9SignMasterKey {
    constructor (inner) { ctor(inner, 'Sm9SignMasterKey'); this[KEYBYTES] = inner.b }
    static generate () { sm9('SM9'); return new Sm9SignMasterKey({ [INNER]: true, b: E.sm9SignMasterGenerate() }) }
    /** From ks, 32 bytes in [1, N-1]. */
    static fromBytes (data) { sm9('SM9'); const b = bytes(data, 'data').slice(); E.sm9SignMasterPublic(b); return new Sm9SignMasterKey({ [INNER]: true, b }) }
    toBytes () { return held(this, 'Sm9SignMasterKey').slice() }
    publicKey () { return new Sm9SignMasterPublicKey({ [INNER]: true, b: E.sm9SignMasterPublic(held(this, 'Sm9SignMasterKey')) }) }
    /** The signing key of the identity `id` (hid 0x01). */
    extract (id) {
      const ks = held(this, 'Sm9SignMasterKey')
      return new Sm9SigningKey({ [INNER]: true, b: E.sm9SignExtract(ks, bytes(id, 'id')), mpk: E.sm9SignMasterPublic(ks) })
    }
    free () { wipe(this[KEYBYTES]); this[KEYBYTES] = null }
  }
  /** An SM9 encryption master public key (Ppub-e). */
  class Sm9EncryptMasterPublicKey {
    constructor (inner) { ctor(inner, 'Sm9EncryptMasterPublicKey'); this[KEYBYTES] = inner.b }
    /** From x‖y (64 bytes) or 04‖x‖y; checked on the curve. */
    static fromBytes (data) { sm9('SM9'); return new Sm9EncryptMasterPublicKey({ [INNER]: true, b: E.sm9MasterPublicCheck(bytes(data, 'data'), false) }) }
    toBytes () { return held(this, 'Sm9EncryptMasterPublicKey').slice() }
    /** Encrypts `msg` to the identity `id`: C1‖C3‖C2 (default) or, with der = true, DER. */
    encrypt (id, msg, der) { return E.sm9Encrypt(held(this, 'Sm9EncryptMasterPublicKey'), bytes(id, 'id'), bytes(msg, 'msg'), bool(der, 'der', false)) }
    free () { this[KEYBYTES] = null }
  }
  /** A user's SM9 decryption key (with its master public key and identity). */
  class Sm9EncryptPrivateKey {
    constructor (inner) { ctor(inner, 'Sm9EncryptPrivateKey'); this[KEYBYTES] = inner.b; this._mpk = inner.mpk; this._id = inner.id }
    /** From 04‖x‖y (129 bytes) or x‖y, checked against `masterPublicKey`, for `id`. */
    static fromBytes (data, masterPublicKey, id) {
      sm9('SM9')
      const m = held(sm9Of(masterPublicKey, Sm9EncryptMasterPublicKey, 'masterPublicKey'), 'Sm9EncryptMasterPublicKey')
      const i = bytes(id, 'id').slice()
      return new Sm9EncryptPrivateKey({ [INNER]: true, b: E.sm9UserKeyCheck(bytes(data, 'data'), m, false), mpk: m, id: i })
    }
    toBytes () { return held(this, 'Sm9EncryptPrivateKey').slice() }
    /** Decrypts C1‖C3‖C2 or DER; throws when the MAC does not match. */
    decrypt (ct) { return E.sm9Decrypt(held(this, 'Sm9EncryptPrivateKey'), this._mpk, this._id, bytes(ct, 'ct')) }
    free () { wipe(this[KEYBYTES]); this[KEYBYTES] = null }
  }
  /** The encryption master key (ke) of a key generation centre. */
  class Sm9EncryptMasterKey {
    constructor (inner) { ctor(inner, 'Sm9EncryptMasterKey'); this[KEYBYTES] = inner.b }
    static generate () { sm9('SM9'); return new Sm9EncryptMasterKey({ [INNER]: true, b: E.sm9EncMasterGenerate() }) }
    static fromBytes (data) { sm9('SM9'); const b = bytes(data, 'data').slice(); E.sm9EncMasterPublic(b); return new Sm9EncryptMasterKey({ [INNER]: true, b }) }
    toBytes () { return held(this, 'Sm9EncryptMasterKey').slice() }
    publicKey () { return new Sm9EncryptMasterPublicKey({ [INNER]: true, b: E.sm9EncMasterPublic(held(this, 'Sm9EncryptMasterKey')) }) }
    /** The decryption key of the identity `id` (hid 0x03). */
    extract (id) {
      const ke = held(this, 'Sm9EncryptMasterKey')
      const i = bytes(id, 'id').slice()
      return new Sm9EncryptPrivateKey({ [INNER]: true, b: E.sm9EncExtract(ke, i), mpk: E.sm9EncMasterPublic(ke), id: i })
    }
    free () { wipe(this[KEYBYTES]); this[KEYBYTES] = null }
  }

  // --- ZUC (GM/T 0001; 3GPP 128-EEA3 / 128-EIA3) -----------------------------------------
  function uint (v, name, max) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`${name} must be an integer from 0 to ${max}, not ${typeName(v) === 'number' ? v : typeName(v)}`)
    return v
  }
  function bitLength (v, data) {
    if (v === undefined || v === null) return undefined
    return uint(v, 'bitLength', Math.min(data.length * 8, 0xffffffff))
  }
  function eea3Args (key, count, bearer, direction, data, bits) {
    const d = bytes(data, 'data')
    return [bytes(key, 'key'), uint(count, 'count', 0xffffffff), uint(bearer, 'bearer', 31), uint(direction, 'direction', 1), d, bitLength(bits, d)]
  }
  // ZUC-256 is left out of the wasm module (its size cap): native only.
  function zucKey (key) {
    bytes(key, 'key')
    if (key.length === 32 && typeof E.zuc256Mac !== 'function') throw new NativeRequiredError('ZUC-256')
    return key
  }
  const zuc = {
    /** 128-EEA3: `data` (its first `bitLength` bits; all by default) XOR the keystream of
     *  the 16-byte key with COUNT, BEARER (0-31) and DIRECTION (0/1); encrypts and decrypts. */
    zucEea3: (key, count, bearer, direction, data, bits) => E.zucEea3(...eea3Args(key, count, bearer, direction, data, bits)),
    /** 128-EIA3: the 4-byte MAC of `data` (its first `bitLength` bits; all by default). */
    zucEia3: (key, count, bearer, direction, data, bits) => E.zucEia3(...eea3Args(key, count, bearer, direction, data, bits)),
    /** `data` XOR the keystream of ZUC-128 (16-byte key, 16-byte IV) or ZUC-256 (32-byte
     *  key, 25-byte IV). */
    zucApply: (key, iv, data) => E.zucApply(zucKey(key), bytes(iv, 'iv'), bytes(data, 'data')),
    /** `length` bytes of keystream (as zucApply over zeros). */
    zucKeystream: (key, iv, length) => E.zucApply(zucKey(key), bytes(iv, 'iv'), new Uint8Array(uint(length, 'length', 1 << 30))),
    /** The ZUC-256 MAC (tag of 4, 8 or 16 bytes; default 4) under a 32-byte key and 25-byte IV. */
    zuc256Mac: (key, iv, data, tagSize) => {
      const t = tagSize === undefined ? 4 : tagSize
      if (t !== 4 && t !== 8 && t !== 16) throw new RangeError('tagSize must be 4, 8 or 16')
      if (typeof E.zuc256Mac !== 'function') throw new NativeRequiredError('ZUC-256')
      return E.zuc256Mac(bytes(key, 'key'), bytes(iv, 'iv'), bytes(data, 'data'), t)
    }
  }

  // --- certificates, CMS, PKCS#12 (the native engine only) --------------------------------
  /** Thrown by what only the native addon provides (TLCP, certificates, CMS, PKCS#12) when
   *  the engine is the WebAssembly module. */
  class NativeRequiredError extends Error {
    constructor (what) {
      super(`${what} needs the native addon (the engine is ${engine}): build it with npm run build:native`)
      this.name = 'NativeRequiredError'
      this.code = 'ERR_SHANGMI_NATIVE_REQUIRED'
    }
  }
  const native = typeof E.certInfo === 'function'
  const needNative = (what) => { if (!native) throw new NativeRequiredError(what) }
  // PEM text (string or bytes) to DER documents with one of `labels`, or one DER document.
  function documents (v, name, labels) {
    if (typeof v === 'string') v = enc.encode(v)
    else bytes(v, name)
    // PEM anywhere (openssl's output puts 'Bag Attributes' or the text form before it)
    const pem = decLossy.decode(v).includes('-----BEGIN ')
    if (!pem) return [v]
    const docs = E.pemDecode(v, labels)
    if (!docs.length) throw new Error(`${name}: no PEM block labelled ${labels.join(' or ')}`)
    return docs
  }
  function list (v, name, each) {
    if (v === undefined || v === null) return []
    if (!Array.isArray(v)) throw new TypeError(`${name} must be an array, not ${typeName(v)}`)
    return v.map((x, i) => each(x, `${name}[${i}]`))
  }
  function strings (v, name) { return list(v, name, (x, n) => string(x, n)) }
  function scalarOf (key, name) {
    if (!(key instanceof Sm2PrivateKey)) throw new TypeError(`${name} must be an Sm2PrivateKey, not ${typeName(key)}`)
    return live(key, 'Sm2PrivateKey').toBytes()
  }
  function withScalar (key, name, f) { const d = scalarOf(key, name); try { return f(d) } finally { wipe(d) } }
  function optInt (v, name, dflt, max) { return v === undefined ? dflt : uint(v, name, max) }
  function optString (v, name) { return v === undefined || v === null ? undefined : string(v, name) }
  function time (v) {
    if (v === undefined || v === null) return undefined
    if (v instanceof Date) return Math.floor(v.getTime() / 1000)
    return uint(v, 'time', Number.MAX_SAFE_INTEGER)
  }
  const CERT = Symbol('shangmi.der')

  /** An X.509 certificate (SM2). */
  class Certificate {
    constructor (inner) {
      if (!inner || inner[INNER] !== true) throw new TypeError('use Certificate.fromDer, fromPem or loadAll')
      this[CERT] = inner.der
      const i = E.certInfo(inner.der)
      /** "/C=CN/O=…/CN=…" */
      this.subject = i.subject
      this.issuer = i.issuer
      this.commonName = i.commonName === null ? undefined : i.commonName
      /** The serial number, hex. */
      this.serial = i.serial
      this.notBefore = new Date(i.notBefore * 1000)
      this.notAfter = new Date(i.notAfter * 1000)
      /** "DNS:…", "IP:…", "email:…", "URI:…" */
      this.subjectAltNames = i.subjectAltNames
      this.isCa = i.isCa
      /** keyUsage bits by name ("digitalSignature", "keyEncipherment", …). */
      this.keyUsage = i.keyUsage
      this.signatureAlgorithm = i.signatureAlgorithm
      this._pk = i.publicKey
      Object.freeze(this)
    }
    static fromDer (der) { needNative('Certificate'); return new Certificate({ [INNER]: true, der: bytes(der, 'der').slice() }) }
    /** The first certificate of PEM text (string or bytes). */
    static fromPem (pem) { needNative('Certificate'); return Certificate.loadAll(pem)[0] }
    /** Every certificate of a PEM bundle (or the one DER certificate). */
    static loadAll (data) {
      needNative('Certificate')
      return documents(data, 'data', ['CERTIFICATE']).map((der) => new Certificate({ [INNER]: true, der }))
    }
    /** The subject's SM2 public key. */
    publicKey () {
      if (!this._pk) throw new Error('not an SM2 public key')
      return Sm2PublicKey.fromBytes(this._pk)
    }
    toDer () { return this[CERT].slice() }
    toPem () { return E.pemEncode('CERTIFICATE', this[CERT]) }
    /** SM3 of the DER encoding, hex. */
    fingerprint () { return toHex(E.sm3Digest(this[CERT])) }
    equals (other) { return other instanceof Certificate && toHex(other[CERT]) === toHex(this[CERT]) }
    /** The fields, one a line (as `openssl x509 -noout -subject -issuer …` shows them). */
    show () {
      return [`subject: ${this.subject}`, `issuer: ${this.issuer}`, `serial: ${this.serial}`,
        `notBefore: ${this.notBefore.toISOString()}`, `notAfter: ${this.notAfter.toISOString()}`,
        `subjectAltNames: ${this.subjectAltNames.join(', ')}`, `keyUsage: ${this.keyUsage.join(', ')}`,
        `CA: ${this.isCa}`, `SM3 fingerprint: ${this.fingerprint()}`].join('\n')
    }
  }
  const certOf = (c, name) => {
    if (!(c instanceof Certificate)) throw new TypeError(`${name} must be a Certificate, not ${typeName(c)}`)
    return c[CERT]
  }
  const certList = (v, name) => list(v, name, certOf)
  const wrapCert = (der) => new Certificate({ [INNER]: true, der })

  /** A PKCS#10 certificate request. */
  class CertificateRequest {
    constructor (inner) {
      if (!inner || inner[INNER] !== true) throw new TypeError('use CertificateRequest.create, fromDer or fromPem')
      const i = E.csrInfo(inner.der) // checks the self-signature
      this[CERT] = inner.der
      this.subject = i.subject
      this.subjectAltNames = i.subjectAltNames
      this._pk = i.publicKey
      Object.freeze(this)
    }
    /** A request signed by `key` for `subject` ("/C=CN/O=…/CN=…") with SANs ("DNS:…", "IP:…"). */
    static create (key, subject, sans) {
      needNative('CertificateRequest')
      const s = string(subject, 'subject'); const a = strings(sans, 'sans')
      return new CertificateRequest({ [INNER]: true, der: withScalar(key, 'key', (d) => E.csrCreate(d, s, a)) })
    }
    static fromDer (der) { needNative('CertificateRequest'); return new CertificateRequest({ [INNER]: true, der: bytes(der, 'der').slice() }) }
    static fromPem (pem) {
      needNative('CertificateRequest')
      return new CertificateRequest({ [INNER]: true, der: documents(pem, 'pem', ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST'])[0] })
    }
    /** The requested key (the request's signature was checked when it was read). */
    publicKey () { return Sm2PublicKey.fromBytes(this._pk) }
    toDer () { return this[CERT].slice() }
    toPem () { return E.pemEncode('CERTIFICATE REQUEST', this[CERT]) }
  }

  function issueOpts (o, dfltProfile, dfltDays) {
    o = options(o)
    return [string(o.profile, 'profile', dfltProfile), optInt(o.days, 'days', dfltDays, 36500), strings(o.sans, 'sans'),
      o.pathLen === undefined || o.pathLen === null ? undefined : uint(o.pathLen, 'pathLen', 255)]
  }
  const pki = {
    Certificate,
    CertificateRequest,
    /** A self-signed certificate for `key` ({profile: 'ca' (default) | 'tls-server' | …, days: 3650, sans, pathLen}). */
    certSelfSigned (key, subject, opts) {
      needNative('certSelfSigned')
      const s = string(subject, 'subject'); const [p, days, sans, pl] = issueOpts(opts, 'ca', 3650)
      return wrapCert(withScalar(key, 'key', (d) => E.certIssue(null, d, null, s, p, days, sans, pl)))
    },
    /** A certificate for `publicKey` issued by `issuer` with `issuerKey` ({profile: 'tls-server' (default), 'tls-client', 'tlcp-sign', 'tlcp-enc', 'ca'; days: 365; sans; pathLen}). */
    certIssue (issuer, issuerKey, publicKey, subject, opts) {
      needNative('certIssue')
      const c = certOf(issuer, 'issuer')
      if (!(publicKey instanceof Sm2PublicKey)) throw new TypeError(`publicKey must be an Sm2PublicKey, not ${typeName(publicKey)}`)
      const pk = publicKey.toBytes(); const s = string(subject, 'subject'); const [p, days, sans, pl] = issueOpts(opts, 'tls-server', 365)
      return wrapCert(withScalar(issuerKey, 'issuerKey', (d) => E.certIssue(c, d, pk, s, p, days, sans, pl)))
    },
    /** A certificate for a request (subject and SANs from it) ({profile, days}). */
    certIssueFromRequest (issuer, issuerKey, request, opts) {
      needNative('certIssueFromRequest')
      const c = certOf(issuer, 'issuer')
      if (!(request instanceof CertificateRequest)) throw new TypeError(`request must be a CertificateRequest, not ${typeName(request)}`)
      const [p, days] = issueOpts(opts, 'tls-server', 365)
      return wrapCert(withScalar(issuerKey, 'issuerKey', (d) => E.certIssueFromRequest(c, d, request[CERT], p, days)))
    },
    /** A CRL (DER) of `issuer` revoking `serials` (hex strings or bytes) ({days: 30, number: 1}). */
    crlIssue (issuer, issuerKey, serials, opts) {
      needNative('crlIssue')
      const c = certOf(issuer, 'issuer'); const o = options(opts)
      const rev = list(serials, 'serials', (x, n) => typeof x === 'string' ? fromHex(x, n) : bytes(x, n))
      const days = optInt(o.days, 'days', 30, 36500); const number = optInt(o.number, 'number', 1, 0xffffffff)
      return withScalar(issuerKey, 'issuerKey', (d) => E.crlIssue(c, d, rev, days, number))
    },
    /** Verifies `leaf` up to one of `roots` ({intermediates, crls (DER or PEM), purpose: 'any' | 'tls-server' | 'tls-client' | 'tlcp-sign' | 'tlcp-enc' | 'cms-sign', host, time}); returns the path, leaf first; throws when it does not verify. */
    verifyChain (leaf, roots, opts) {
      needNative('verifyChain')
      const l = certOf(leaf, 'leaf'); const r = certList(roots, 'roots'); const o = options(opts)
      const crls = list(o.crls, 'crls', (x, n) => documents(x, n, ['X509 CRL'])).flat()
      return E.verifyChain(l, r, certList(o.intermediates, 'intermediates'), crls, string(o.purpose, 'purpose', 'any'),
        optString(o.host, 'host'), time(o.time)).map(wrapCert)
    },
    /** A CMS SignedData (DER) over `content` ({chain, detached: false, rfc5652: false (GM/T 0010 OIDs)}). */
    cmsSign (content, cert, key, opts) {
      needNative('cmsSign')
      const m = bytes(content, 'content'); const c = certOf(cert, 'cert'); const o = options(opts)
      const chain = certList(o.chain, 'chain'); const det = bool(o.detached, 'detached', false); const rfc = bool(o.rfc5652, 'rfc5652', false)
      return withScalar(key, 'key', (d) => E.cmsSign(m, c, d, chain, det, rfc))
    },
    /** Verifies a SignedData (DER or PEM) against `roots` ({detached, certs, purpose: 'cms-sign', time}): {content, signers}. */
    cmsVerify (message, roots, opts) {
      needNative('cmsVerify')
      const m = typeof message === 'string' ? enc.encode(message) : bytes(message, 'message')
      const r = certList(roots, 'roots'); const o = options(opts)
      const v = E.cmsVerify(m, r, optBytes(o.detached, 'detached'), certList(o.certs, 'certs'), string(o.purpose, 'purpose', 'cms-sign'), time(o.time))
      return { content: v.content, signers: v.signers.map(wrapCert) }
    },
    /** A CMS EnvelopedData (DER) of `content` for the recipients' certificates ({rfc5652: false}). */
    cmsEncrypt (content, recipients, opts) {
      needNative('cmsEncrypt')
      const o = options(opts)
      return E.cmsEncrypt(bytes(content, 'content'), certList(recipients, 'recipients'), bool(o.rfc5652, 'rfc5652', false))
    },
    /** Opens an EnvelopedData (DER or PEM) with the recipient's certificate and key. */
    cmsDecrypt (message, cert, key) {
      needNative('cmsDecrypt')
      const m = typeof message === 'string' ? enc.encode(message) : bytes(message, 'message'); const c = certOf(cert, 'cert')
      return withScalar(key, 'key', (d) => E.cmsDecrypt(m, c, d))
    },
    /** Reads a PKCS#12 file: {key: Sm2PrivateKey, cert: Certificate, chain: Certificate[]}. */
    pkcs12Import (data, password) {
      needNative('pkcs12Import')
      const r = E.pkcs12Import(bytes(data, 'data'), string(password, 'password'))
      try {
        return { key: Sm2PrivateKey.fromBytes(r.key), cert: wrapCert(r.cert), chain: r.chain.map(wrapCert) }
      } finally { wipe(r.key) }
    },
    /** Writes a PKCS#12 file ({chain, sm: false (OpenSSL 3's algorithms) | true (PBKDF2-HMAC-SM3, SM4-CBC)}). */
    pkcs12Export (cert, key, password, opts) {
      needNative('pkcs12Export')
      const c = certOf(cert, 'cert'); const p = string(password, 'password'); const o = options(opts)
      const chain = certList(o.chain, 'chain'); const sm = bool(o.sm, 'sm', false)
      return withScalar(key, 'key', (d) => E.pkcs12Export(c, d, p, chain, sm))
    }
  }
  // On the wasm engine (and in browsers) the TLCP client is not there: js/index.js puts the
  // real one (js/tlcp.js) in its place when the engine is the native addon.
  const tlcp = {
    connect () { throw new NativeRequiredError('tlcp.connect') },
    connector () { throw new NativeRequiredError('tlcp.connector') },
    Agent: class Agent { constructor () { throw new NativeRequiredError('tlcp.Agent') } }
  }

  // --- sm-crypto 0.5 ----------------------------------------------------------------------
  const DEFAULT_ID = '1234567812345678'
  const N = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123n

  // A private key in hex: up to 64 digits after leading zeros (sm-crypto's BigInteger takes
  // any length and reduces it; a longer key is refused here), in [1, n-2] (the engine).
  function privateKey (v) {
    if (typeof v !== 'string') throw new TypeError(`privateKey must be a hex string, not ${typeName(v)}`)
    const s = v.replace(/^0+/, '')
    if (!HEX_RE.test(s) || !v) throw new Error('privateKey is not a hex string')
    if (s.length > 64) throw new Error('privateKey is longer than 64 hex digits')
    return fromHex(s.padStart(64, '0'), 'privateKey')
  }
  // A public key in hex: 04‖x‖y (130 digits), 02/03‖x (66) or x‖y (128), on the curve.
  function publicKeyBytes (v) {
    if (typeof v !== 'string') throw new TypeError(`publicKey must be a hex string, not ${typeName(v)}`)
    if (!HEX_RE.test(v) || (v.length !== 130 && v.length !== 66 && v.length !== 128)) throw new Error('Invalid public key')
    return fromHex(v, 'publicKey')
  }
  function userId (v) {
    if (v === undefined) return undefined
    return utf8(string(v, 'userId'), 'userId')
  }
  function fromBig (x) { return fromHex(x.toString(16).padStart(64, '0'), 'key') }

  function keyPair (d) {
    try {
      return { privateKey: toHex(d), publicKey: toHex(E.sm2PublicOf(d)) }
    } finally { wipe(d) }
  }
  // The integer jsbn's `new BigInteger(a, b, c)` makes of generateKeyPairHex's arguments.
  function seedInteger (a, b, c) {
    if (typeof a === 'number') {
      if (!Number.isInteger(a) || a < 1 || a > 65536) throw new RangeError('the bit length must be an integer from 1 to 65536')
      if (typeof b === 'number') throw new Error('generateKeyPairHex(bits, certainty, rng) (a probable prime, jsbn) is not supported')
      if (b === null || (typeof b !== 'object' && typeof b !== 'function') || typeof b.nextBytes !== 'function') {
        throw new TypeError('generateKeyPairHex(bits, rng): rng must have nextBytes(array)')
      }
      const x = new Array((a >> 3) + 1).fill(0)
      b.nextBytes(x)
      const t = a & 7
      x[0] = t > 0 ? x[0] & ((1 << t) - 1) : 0
      let v = 0n
      for (const byte of x) v = (v << 8n) | BigInt(byte & 0xff)
      return v
    }
    if (typeof a === 'string') {
      const radix = b === undefined || b === null ? 10 : b
      if (!Number.isInteger(radix) || radix < 2 || radix > 36) throw new RangeError('the radix must be an integer from 2 to 36')
      const neg = a.startsWith('-')
      const digits = (neg ? a.slice(1) : a).toLowerCase()
      if (!digits) throw new Error('the seed is empty')
      let v = 0n
      for (const ch of digits) {
        const d = parseInt(ch, 36)
        if (Number.isNaN(d) || d >= radix) throw new Error(`the seed is not a base-${radix} number`)
        v = v * BigInt(radix) + BigInt(d)
      }
      return neg ? -v : v
    }
    if (isBytes(a) || Array.isArray(a)) {
      // jsbn reads a byte array as a big-endian two's-complement integer
      const u = arrayBytes(a, 'seed')
      let v = 0n
      for (const byte of u) v = (v << 8n) | BigInt(byte)
      if (u.length && u[0] & 0x80) v -= 1n << BigInt(8 * u.length)
      return v
    }
    throw new TypeError(`generateKeyPairHex: unsupported seed ${typeName(a)}`)
  }

  const sm2 = {
    /**
     * {privateKey, publicKey} in hex (04‖x‖y). With arguments as sm-crypto: (bits, rng)
     * draws `bits` random bits from rng.nextBytes, (string, radix) parses a seed, (bytes) a
     * big-endian seed; the key is then seed mod (n-1) + 1, as sm-crypto computes it.
     */
    generateKeyPairHex (a, b, c) {
      if (!a) return keyPair(E.sm2GenerateSecret())
      let v = seedInteger(a, b, c)
      v = ((v % (N - 1n)) + (N - 1n)) % (N - 1n) + 1n
      return keyPair(fromBig(v))
    },
    getPublicKeyFromPrivateKey (key) {
      const d = privateKey(key)
      try { return toHex(E.sm2PublicOf(d)) } finally { wipe(d) }
    },
    /** 02‖x / 03‖x of a 130-digit key (as sm-crypto: only y's parity is read). */
    compressPublicKeyHex (s) {
      if (typeof s !== 'string' || s.length !== 130) throw new Error('Invalid public key to compress')
      if (!HEX_RE.test(s)) throw new Error('Invalid public key to compress')
      return (parseInt(s[129], 16) & 1 ? '03' : '02') + s.substr(2, 64)
    },
    comparePublicKeyHex (a, b) {
      if (!sm2.verifyPublicKey(a) || !sm2.verifyPublicKey(b)) return false
      return toHex(E.sm2Point(publicKeyBytes(a))) === toHex(E.sm2Point(publicKeyBytes(b)))
    },
    /** Whether the hex key is a point on the curve; false (never an exception) otherwise. */
    verifyPublicKey (key) {
      if (typeof key !== 'string' || !key) return false
      let p
      try { p = publicKeyBytes(key) } catch { return false }
      try { E.sm2Point(p); return true } catch { return false }
    },
    /** Hex C1 (without 04) ‖ C3 ‖ C2 (cipherMode 1, default) or C1 ‖ C2 ‖ C3 (0). */
    doEncrypt (msg, publicKey, cipherMode = 1) {
      if (!sm2.verifyPublicKey(publicKey)) throw new Error('Invalid public key')
      const m = message(msg, 'msg')
      return toHex(E.sm2Encrypt(publicKeyBytes(publicKey), m, cipherMode === 0 ? 'C1C2C3_RAW' : 'C1C3C2_RAW'))
    },
    /**
     * Decrypts hex (C1 without 04 as doEncrypt writes; a 04-prefixed C1 is also taken):
     * UTF-8 text (throws 'Malformed UTF-8 data' when it is not) or, with {output: 'array'},
     * an array; '' (or []) when the ciphertext does not decrypt.
     */
    doDecrypt (encryptData, key, cipherMode = 1, opts) {
      const o = options(opts)
      const array = (o.output === undefined ? 'string' : o.output) === 'array'
      const d = privateKey(key)
      try {
        if (typeof encryptData !== 'string') throw new TypeError(`encryptData must be a hex string, not ${typeName(encryptData)}`)
        const fail = array ? [] : ''
        let ct
        try { ct = fromHex(encryptData, 'encryptData') } catch { return fail }
        const c1c2c3 = cipherMode === 0
        let pt
        try {
          pt = E.sm2Decrypt(d, ct, c1c2c3 ? 'C1C2C3_RAW' : 'C1C3C2_RAW')
        } catch (e) {
          if (/private key/.test(e.message)) throw e // d = 0 or d >= n-1: no key
          if (ct[0] !== 4) return fail
          try { pt = E.sm2Decrypt(d, ct, c1c2c3 ? 'C1C2C3' : 'C1C3C2') } catch { return fail }
        }
        if (array) return plainArray(pt)
        try { return decStrict.decode(pt) } catch { throw new Error('Malformed UTF-8 data') } finally { wipe(pt) }
      } finally { wipe(d) }
    },
    /**
     * Hex r‖s (or DER with {der: true}). hash (default true) signs SM3(Z ‖ msg) with
     * userId and publicKey (default: the private key's); hash: false signs msg as the
     * integer e. pointPool: entries of sm2.getPoint() are consumed (popped) as the nonces.
     */
    doSignature (msg, key, opts) {
      const o = options(opts)
      const m = message(msg, 'msg')
      const hash = o.hash === undefined ? true : !!o.hash
      const id = hash ? userId(o.userId) : undefined
      const pk = hash && o.publicKey ? publicKeyBytes(o.publicKey) : undefined
      const d = privateKey(key)
      const pool = o.pointPool
      if (pool !== undefined && pool !== null && !Array.isArray(pool)) throw new TypeError('pointPool must be an array')
      try {
        let sig
        while (!sig && pool && pool.length) {
          const k = poolNonce(pool.pop())
          try { sig = E.sm2Sign(d, m, hash, id, pk, k) } catch (e) {
            if (!/k gives no signature/.test(e.message)) throw e
          } finally { wipe(k) }
        }
        if (!sig) sig = E.sm2Sign(d, m, hash, id, pk, undefined)
        return toHex(o.der ? E.sm2SigToDer(sig) : sig)
      } finally { wipe(d) }
    },
    /** Whether signHex is a signature of msg (options as doSignature); false on bad input. */
    doVerifySignature (msg, signHex, publicKey, opts) {
      if (!sm2.verifyPublicKey(publicKey)) return false
      const o = options(opts)
      let m
      // sm-crypto reads any message but null/undefined (a TypeError) as an array-like:
      // whatever it is, it is not what was signed here.
      try { m = message(msg, 'msg') } catch (e) { if (msg === null || msg === undefined) throw e; return false }
      const hash = o.hash === undefined ? true : !!o.hash
      let id
      try { id = hash ? userId(o.userId) : undefined } catch { return false }
      if (typeof signHex !== 'string') {
        if (o.der) return false // sm-crypto's DER decoder fails inside a try
        throw new TypeError(`signHex must be a hex string, not ${typeName(signHex)}`)
      }
      let sig
      try {
        if (o.der) {
          sig = E.sm2SigFromDer(fromHex(signHex, 'signHex'))
        } else {
          const r = signHex.substring(0, 64).replace(/^0+/, '')
          const s = signHex.substring(64).replace(/^0+/, '')
          if (r.length > 64 || s.length > 64) return false
          sig = fromHex(r.padStart(64, '0') + s.padStart(64, '0'), 'signHex')
        }
      } catch { return false }
      return E.sm2Verify(publicKeyBytes(publicKey), m, sig, hash, id)
    },
    /**
     * A random point for pointPool: {privateKey, publicKey, k, x1}, k and x1 as BigInt
     * (sm-crypto's are jsbn BigIntegers; both have toString(16)).
     */
    getPoint () {
      const p = sm2.generateKeyPairHex()
      p.k = BigInt('0x' + p.privateKey)
      p.x1 = BigInt('0x' + p.publicKey.substr(2, 64))
      return p
    }
  }
  // The nonce of a pointPool entry: its k (BigInt, jsbn BigInteger or hex string).
  function poolNonce (p) {
    const k = p !== null && typeof p === 'object' ? p.k : undefined
    let s
    if (typeof k === 'bigint') s = k.toString(16)
    else if (typeof k === 'string') s = k
    else if (k !== null && typeof k === 'object' && typeof k.toString === 'function' && typeof k.compareTo === 'function') s = k.toString(16)
    else throw new TypeError('pointPool entries must be points of sm2.getPoint()')
    if (typeof s !== 'string' || !HEX_RE.test(s) || s.length > 64 || s.startsWith('-')) throw new Error('pointPool entry: k out of range')
    return fromHex(s.padStart(64, '0'), 'k')
  }

  /** sm-crypto's sm3(input, {key, mode}): hex SM3, or HMAC-SM3 with a key. */
  function sm3 (input, opts) {
    const m = message(input, 'input')
    if (opts) {
      const mode = opts.mode || 'hmac'
      if (mode !== 'hmac') throw new Error('invalid mode')
      const key = opts.key
      if (!key) throw new Error('invalid key')
      return toHex(E.hmacSm3(typeof key === 'string' ? fromHex(key, 'key') : arrayBytes(key, 'key'), m))
    }
    return toHex(E.sm3Digest(m))
  }

  function sm4run (input, key, opts, encrypt) {
    const o = options(opts)
    const padding = o.padding === undefined ? 'pkcs#7' : o.padding
    const output = o.output === undefined ? 'string' : o.output
    const cbc = o.mode === 'cbc'
    let iv
    if (cbc) {
      const v = o.iv === undefined ? [] : o.iv
      if (typeof v === 'string') iv = HEX_RE.test(v) ? fromHex(v, 'iv') : undefined
      else if (isBytes(v) || Array.isArray(v)) iv = arrayBytes(v, 'iv')
      if (!iv || iv.length !== 16) throw new Error('iv is invalid')
    }
    if (key === undefined || key === null) throw new TypeError(`key must be a hex string or bytes, not ${typeName(key)}`)
    let k
    if (typeof key === 'string') k = HEX_RE.test(key) ? fromHex(key, 'key') : undefined
    else if (isBytes(key) || Array.isArray(key)) k = arrayBytes(key, 'key')
    if (!k || k.length !== 16) throw new Error('key is invalid')
    let data
    if (typeof input === 'string') data = encrypt ? utf8(input, 'input') : fromHex(input, 'input')
    else data = arrayBytes(input, 'input')
    const pad = padding === 'pkcs#5' || padding === 'pkcs#7'
    let out
    if (!encrypt && data.length === 0) {
      out = new Uint8Array(0) // sm-crypto: '' (or []) whatever the padding
    } else if (cbc) {
      out = encrypt ? E.sm4CbcEncrypt(k, iv, data, pad) : E.sm4CbcDecrypt(k, iv, data, pad)
    } else {
      out = encrypt ? E.sm4EcbEncrypt(k, data, pad) : E.sm4EcbDecrypt(k, data, pad)
    }
    if (k !== key) wipe(k)
    if (output === 'array') return plainArray(out)
    return encrypt ? toHex(out) : decLossy.decode(out)
  }
  const sm4 = {
    /** ECB unless {mode: 'cbc', iv}; PKCS#7 unless padding is not 'pkcs#7'/'pkcs#5'; hex out unless {output: 'array'}. */
    encrypt: (input, key, opts) => sm4run(input, key, opts, true),
    /** A string input is hex; UTF-8 text out unless {output: 'array'}. */
    decrypt: (input, key, opts) => sm4run(input, key, opts, false)
  }

  return Object.freeze({
    engine,
    ...typed,
    Sm3Hasher,
    Sm2PrivateKey,
    Sm2PublicKey,
    sm2KeyExchange,
    Sm9SignMasterKey,
    Sm9SignMasterPublicKey,
    Sm9SigningKey,
    Sm9EncryptMasterKey,
    Sm9EncryptMasterPublicKey,
    Sm9EncryptPrivateKey,
    ...zuc,
    NativeRequiredError,
    ...pki,
    tlcp: Object.freeze(tlcp),
    _native: native ? { E, certDer: (c) => c[CERT], wrapCert, scalarOf } : undefined,
    sm2: Object.freeze(sm2),
    sm3,
    sm4: Object.freeze(sm4)
  })
}

if (typeof module !== 'undefined' && module.exports) module.exports = makeShangmi
