// Certificates, requests, CRLs, CMS, PKCS#12 and the TLCP client (issue 39 item 5): native
// engine only (on the wasm engine each throws NativeRequiredError, checked at the end).
// The TLCP server is the addon's own `_tlcpTestServer` (shangmi-tlcp's server on a thread of
// this process, one fixed response per connection, as the Python package's tests do): no
// binary to build, no port left open (it serves the connections it was asked for, then
// its thread ends).
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const https = require('node:https')
const path = require('node:path')
const fs = require('node:fs')
const makeShangmi = require('../js/api.js')

const nativeFile = path.join(__dirname, '..', 'native', `shangmi.${process.platform}-${process.arch}.node`)
const hasNative = fs.existsSync(nativeFile)
if (process.env.SHANGMI_REQUIRE_NATIVE === '1') assert.ok(hasNative, 'no native addon at ' + nativeFile)
const E = hasNative ? require(nativeFile) : undefined
const sm = hasNative ? makeShangmi(E, 'native') : undefined
const tlcp = hasNative ? require('../js/tlcp.js')(sm) : undefined
const wasm = makeShangmi(require('../pkg-node/shangmi_wasm.js'), 'wasm')
const skip = hasNative ? false : 'no native addon'

function makePki () {
  const caKey = sm.Sm2PrivateKey.generate()
  const ca = sm.certSelfSigned(caKey, '/C=CN/O=Test/CN=Test CA')
  const signKey = sm.Sm2PrivateKey.generate()
  const encKey = sm.Sm2PrivateKey.generate()
  const csr = sm.CertificateRequest.create(signKey, '/C=CN/O=Test/CN=localhost', ['DNS:localhost', 'IP:127.0.0.1'])
  const sign = sm.certIssueFromRequest(ca, caKey, csr, { profile: 'tlcp-sign' })
  const enc = sm.certIssue(ca, caKey, encKey.publicKey(), '/C=CN/O=Test/CN=localhost', { profile: 'tlcp-enc', sans: ['DNS:localhost'] })
  return { caKey, ca, signKey, encKey, csr, sign, enc }
}
const P = hasNative ? makePki() : undefined

test('certificates: show, encodings, request, chain with CRL', { skip }, () => {
  const { ca, caKey, sign, enc, csr, signKey } = P
  assert.equal(ca.subject, ca.issuer)
  assert.match(ca.subject, /CN=Test CA/)
  assert.ok(ca.isCa && !sign.isCa)
  assert.deepEqual(ca.keyUsage, ['digitalSignature', 'keyCertSign', 'cRLSign'])
  assert.deepEqual(sign.keyUsage, ['digitalSignature', 'nonRepudiation'])
  assert.ok(enc.keyUsage.includes('keyEncipherment'))
  assert.deepEqual(sign.subjectAltNames, ['DNS:localhost', 'IP:127.0.0.1'])
  assert.equal(sign.issuer, ca.subject)
  assert.match(sign.serial, /^[0-9a-f]+$/)
  assert.ok(sign.notBefore < new Date() && new Date() < sign.notAfter)
  assert.deepEqual(sign.publicKey().toBytes(), signKey.publicKey().toBytes())
  assert.match(sign.show(), /^subject: C=CN, O=Test, CN=localhost$/m)
  // DER and PEM round trips; a bundle
  assert.ok(sm.Certificate.fromDer(sign.toDer()).equals(sign))
  assert.ok(sm.Certificate.fromPem(sign.toPem()).equals(sign))
  assert.deepEqual(sm.Certificate.loadAll(sign.toPem() + ca.toPem()).map((c) => c.serial), [sign.serial, ca.serial])
  // PEM after text (openssl's 'Bag Attributes', `x509 -text`), other blocks skipped
  assert.deepEqual(sm.Certificate.loadAll('subject=CN = x\n' + sign.toPem() + 'junk\n' + P.csr.toPem() + ca.toPem()).map((c) => c.serial), [sign.serial, ca.serial])
  assert.throws(() => sm.Certificate.fromPem(P.csr.toPem()), /no PEM block labelled CERTIFICATE/)
  assert.match(sign.fingerprint(), /^[0-9a-f]{64}$/)
  // the request
  const r = sm.CertificateRequest.fromPem(csr.toPem())
  assert.equal(r.subject, 'C=CN, O=Test, CN=localhost')
  assert.deepEqual(r.subjectAltNames, ['DNS:localhost', 'IP:127.0.0.1'])
  assert.deepEqual(r.publicKey().toBytes(), signKey.publicKey().toBytes())
  const bad = csr.toDer(); bad[bad.length - 5] ^= 1 // the signature
  assert.throws(() => sm.CertificateRequest.fromDer(bad))
  // chains: purpose, host, an intermediate, a CRL revoking it
  const path = sm.verifyChain(sign, [ca], { purpose: 'tlcp-sign', host: 'localhost' })
  assert.deepEqual(path.map((c) => c.serial), [sign.serial, ca.serial])
  assert.throws(() => sm.verifyChain(sign, [ca], { host: 'example.com' }), /verification failed/)
  assert.throws(() => sm.verifyChain(sign, [ca], { purpose: 'tlcp-enc' }), /verification failed/)
  const otherKey = sm.Sm2PrivateKey.generate()
  assert.throws(() => sm.verifyChain(sign, [sm.certSelfSigned(otherKey, '/CN=Other')]), /verification failed/)
  const interKey = sm.Sm2PrivateKey.generate()
  const inter = sm.certIssue(ca, caKey, interKey.publicKey(), '/C=CN/CN=Inter', { profile: 'ca', pathLen: 0 })
  const leafKey = sm.Sm2PrivateKey.generate()
  const leaf = sm.certIssue(inter, interKey, leafKey.publicKey(), '/CN=leaf.example', { sans: ['DNS:leaf.example'] })
  assert.equal(sm.verifyChain(leaf, [ca], { intermediates: [inter], purpose: 'tls-server' }).length, 3)
  assert.throws(() => sm.verifyChain(leaf, [ca], { intermediates: [inter], time: new Date(Date.now() + 86400e3 * 400) }), /verification failed/) // expired
  assert.throws(() => sm.verifyChain(leaf, [ca]), /verification failed/) // no intermediate
  // CRLs: with any given, each certificate of the path needs its issuer's
  const caCrl = sm.crlIssue(ca, caKey, ['01'])
  const interCrl = sm.crlIssue(inter, interKey, ['02'], { number: 7 })
  assert.equal(sm.verifyChain(leaf, [ca], { intermediates: [inter], crls: [caCrl, interCrl] }).length, 3)
  assert.throws(() => sm.verifyChain(leaf, [ca], { intermediates: [inter], crls: [caCrl] }), /CRL/)
  const leafRevoked = sm.crlIssue(inter, interKey, [leaf.serial], { number: 8 })
  assert.throws(() => sm.verifyChain(leaf, [ca], { intermediates: [inter], crls: [caCrl, leafRevoked] }), /revoked/)
  const interRevoked = sm.crlIssue(ca, caKey, [inter.serial], { number: 2 })
  assert.throws(() => sm.verifyChain(leaf, [ca], { intermediates: [inter], crls: [interRevoked, interCrl] }), /revoked/)
})

test('CMS: signed data (GM/T 0010 and RFC 5652 OIDs, detached) and enveloped data', { skip }, () => {
  const { ca, caKey } = P
  const k = sm.Sm2PrivateKey.generate()
  const signer = sm.certIssue(ca, caKey, k.publicKey(), '/CN=Signer', { profile: 'tls-client' })
  const content = new TextEncoder().encode('contract text')
  for (const rfc5652 of [false, true]) {
    const msg = sm.cmsSign(content, signer, k, { rfc5652 })
    const v = sm.cmsVerify(msg, [ca])
    assert.deepEqual(v.content, content)
    assert.ok(v.signers[0].equals(signer))
    const bad = msg.slice(); bad[bad.length - 40] ^= 1
    assert.throws(() => sm.cmsVerify(bad, [ca]))
    assert.throws(() => sm.cmsVerify(msg, [sm.certSelfSigned(k, '/CN=Other')]), /CMS verification failed/)
  }
  const det = sm.cmsSign(content, signer, k, { detached: true })
  assert.deepEqual(sm.cmsVerify(det, [ca], { detached: content }).content, content)
  assert.throws(() => sm.cmsVerify(det, [ca], { detached: new TextEncoder().encode('contract texT') }))
  // enveloped to two recipients; a third cannot open it
  const k2 = sm.Sm2PrivateKey.generate()
  const r2 = sm.certIssue(ca, caKey, k2.publicKey(), '/CN=R2', { profile: 'tlcp-enc' })
  const env = sm.cmsEncrypt(content, [signer, r2])
  assert.deepEqual(sm.cmsDecrypt(env, signer, k), content)
  assert.deepEqual(sm.cmsDecrypt(env, r2, k2), content)
  const k3 = sm.Sm2PrivateKey.generate()
  assert.throws(() => sm.cmsDecrypt(env, sm.certIssue(ca, caKey, k3.publicKey(), '/CN=R3'), k3))
})

test('PKCS#12: export and import (OpenSSL 3 and SM algorithms), wrong password refused', { skip }, () => {
  const { ca, sign, signKey } = P
  for (const smAlg of [false, true]) {
    const p12 = sm.pkcs12Export(sign, signKey, 'pw', { chain: [ca], sm: smAlg })
    const got = sm.pkcs12Import(p12, 'pw')
    assert.deepEqual(got.key.toBytes(), signKey.toBytes())
    assert.ok(got.cert.equals(sign))
    assert.deepEqual(got.chain.map((c) => c.serial), [ca.serial])
    assert.throws(() => sm.pkcs12Import(p12, 'wrong'))
  }
})

// What Tongsuo's `s_server -www` answers: HTTP/1.0, no length, the body ends at the close.
const BODY = '<html><body>TLCP ok</body></html>'
const RESPONSE = new TextEncoder().encode(`HTTP/1.0 200 ok\r\nContent-type: text/html\r\n\r\n${BODY}`)
function server (connections, response = RESPONSE, clientCa) {
  const { sign, ca, signKey, encKey, enc } = P
  return E._tlcpTestServer([sign.toDer(), ca.toDer()], signKey.toBytes(), enc.toDer(), encKey.toBytes(), response, connections, clientCa ? clientCa.toDer() : undefined)
}
const readAll = (s) => new Promise((resolve, reject) => {
  const parts = []
  s.on('data', (d) => parts.push(d)).on('end', () => resolve(Buffer.concat(parts).toString())).on('error', reject)
})

test('TLCP: tlcp.connect() is a Duplex; each suite; the event loop runs during the handshake', { skip }, async () => {
  for (const suite of ['ECC_SM4_GCM_SM3', 'ECC_SM4_CBC_SM3']) {
    const port = server(1)
    let ticks = 0
    const timer = setInterval(() => ticks++, 0)
    const s = tlcp.connect({ host: '127.0.0.1', port, ca: P.ca.toPem(), servername: 'localhost', suite })
    await new Promise((resolve, reject) => s.once('secureConnect', resolve).once('error', reject))
    clearInterval(timer)
    assert.ok(ticks > 0, 'timers ran while the handshake was under way')
    assert.equal(s.getCipher().name, suite)
    assert.equal(s.getProtocol(), 'TLCPv1.1')
    const peer = s.getPeerCertificates()
    assert.ok(peer[0].equals(P.sign) && peer[1].equals(P.enc))
    s.end('GET / HTTP/1.0\r\n\r\n')
    assert.equal(await readAll(s), new TextDecoder().decode(RESPONSE))
  }
})

test('TLCP: https.request through tlcp.Agent reaches the server', { skip }, async () => {
  const port = server(2)
  const agent = new tlcp.Agent({ ca: [P.ca] })
  for (const path of ['/', '/again']) {
    const body = await new Promise((resolve, reject) => {
      const req = https.request(`https://localhost:${port}${path}`, { agent }, (res) => {
        assert.equal(res.statusCode, 200)
        assert.equal(res.headers['content-type'], 'text/html')
        let b = ''
        res.setEncoding('utf8').on('data', (d) => { b += d }).on('end', () => resolve(b)).on('error', reject)
      })
      req.on('error', reject)
      req.end()
    })
    assert.equal(body, BODY)
  }
  agent.destroy()
})

test('TLCP: an unknown CA, a wrong name and missing client certificates fail the handshake', { skip }, async () => {
  const fails = (o, re) => new Promise((resolve, reject) => {
    const s = tlcp.connect(o)
    s.once('secureConnect', () => reject(new Error('handshake succeeded')))
    s.once('error', (e) => { try { assert.match(e.message, re); resolve() } catch (x) { reject(x) } })
  })
  const other = sm.certSelfSigned(sm.Sm2PrivateKey.generate(), '/CN=Other CA')
  let port = server(2)
  await fails({ host: '127.0.0.1', port, ca: other, servername: 'localhost' }, /TLCP/)
  await fails({ host: '127.0.0.1', port, ca: P.ca, servername: 'example.com' }, /TLCP/)
  // a server requiring client certificates (ECDHE suites need them too)
  const { ca, caKey } = P
  const csk = sm.Sm2PrivateKey.generate(); const cek = sm.Sm2PrivateKey.generate()
  const csign = sm.certIssue(ca, caKey, csk.publicKey(), '/CN=client', { profile: 'tlcp-sign' })
  const cenc = sm.certIssue(ca, caKey, cek.publicKey(), '/CN=client', { profile: 'tlcp-enc' })
  port = server(2, RESPONSE, ca)
  const s = tlcp.connect({ host: '127.0.0.1', port, ca, servername: 'localhost', suite: ['ECDHE_SM4_GCM_SM3'], clientPair: { signChain: [csign], signKey: csk, encCert: cenc, encKey: cek } })
  s.end('GET / HTTP/1.0\r\n\r\n')
  assert.match(await readAll(s), /TLCP ok/)
  assert.equal(s.getCipher().name, 'ECDHE_SM4_GCM_SM3')
  await fails({ host: '127.0.0.1', port, ca, servername: 'localhost' }, /TLCP|closed|close_notify|ECONNRESET/)
})

test('TLCP: bad options are typed refusals', { skip }, () => {
  assert.throws(() => tlcp.connect(), TypeError)
  assert.throws(() => tlcp.connect({ host: 'localhost', port: 1 }), /ca/)
  assert.throws(() => tlcp.connect({ host: 'localhost', port: 0, ca: P.ca }), RangeError)
  assert.throws(() => tlcp.connect({ host: 'localhost', port: 1, ca: 5 }), TypeError)
  assert.throws(() => tlcp.connect({ host: 'localhost', port: 1, ca: P.ca, suite: 'RSA' }), /unknown TLCP suite/)
  assert.throws(() => tlcp.connect({ host: 'localhost', port: 1, ca: P.ca, nameCheck: 'x' }), TypeError)
  assert.throws(() => tlcp.connect({ host: 'localhost', port: 1, ca: P.ca, clientPair: { signChain: [P.sign] } }), TypeError)
  assert.throws(() => new tlcp.Agent({ ca: 'not pem' }))
})

test('wasm engine: TLCP, certificates, CMS and PKCS#12 throw NativeRequiredError', () => {
  const e = (f) => assert.throws(f, (x) => x instanceof wasm.NativeRequiredError && x.code === 'ERR_SHANGMI_NATIVE_REQUIRED')
  e(() => wasm.tlcp.connect({}))
  e(() => new wasm.tlcp.Agent({}))
  e(() => wasm.tlcp.connector({}))
  e(() => wasm.Certificate.fromPem(''))
  e(() => wasm.CertificateRequest.create())
  for (const f of ['certSelfSigned', 'certIssue', 'certIssueFromRequest', 'crlIssue', 'verifyChain', 'cmsSign', 'cmsVerify', 'cmsEncrypt', 'cmsDecrypt', 'pkcs12Import', 'pkcs12Export']) e(() => wasm[f]())
  e(() => wasm.Sm9SignMasterKey.generate())
  e(() => wasm.Sm9EncryptMasterPublicKey.fromBytes(new Uint8Array(64)))
  e(() => wasm.zuc256Mac(new Uint8Array(32), new Uint8Array(25), new Uint8Array(0)))
  e(() => wasm.zucApply(new Uint8Array(32), new Uint8Array(25), new Uint8Array(0)))
})

test('TLCP: fetch() through an undici Agent whose connect is tlcp.connector', { skip }, async () => {
  // Node's global fetch is undici's; undici here is only the Agent class (a dev dependency).
  const undici = require('undici')
  const body = 'fetched over TLCP'
  const response = new TextEncoder().encode(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
  const port = server(1, response)
  const dispatcher = new undici.Agent({ connect: tlcp.connector({ ca: [P.ca] }) })
  const res = await fetch(`https://localhost:${port}/`, { dispatcher })
  assert.equal(res.status, 200)
  assert.equal(await res.text(), body)
  await dispatcher.close()
  // An unknown CA fails the fetch with the TLCP error as its cause.
  const port2 = server(1, response)
  const other = sm.certSelfSigned(sm.Sm2PrivateKey.generate(), '/CN=Other CA')
  const bad = new undici.Agent({ connect: tlcp.connector({ ca: [other] }) })
  await assert.rejects(fetch(`https://localhost:${port2}/`, { dispatcher: bad }), (e) => e instanceof TypeError && e.cause instanceof Error)
  await bad.close()
  assert.throws(() => tlcp.connector({}), TypeError)
  assert.throws(() => tlcp.connector({ ca: [P.ca], timeout: -1 }), RangeError)
})
