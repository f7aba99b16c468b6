// The TLCP client of the `shangmi` package (native engine only; js/index.js installs it):
// `connect()` returns a stream.Duplex of plaintext over a net.Socket of TLCP records, and
// `Agent` is an https.Agent whose connections are those Duplexes, so `https.request(url,
// {agent})` reaches a TLCP gateway.
//
// How the event loop stays free: the addon's TlcpClient has no I/O of its own (shangmi-tlcp's
// sans-I/O connection). Node's net.Socket moves the bytes; on each 'data' event the records
// are handed in (`feed`) and what the connection has to send is written back (`takeOutgoing`).
// Each call works only on bytes already in memory — a record's decryption, or at most the
// handshake's few SM2 operations (well under a millisecond natively) — and never waits for
// the network, as Node's own TLS does its crypto on the main thread. No worker thread or
// libuv pool thread is held while a connection idles, so thousands of idle connections cost
// no threads, and back-pressure is the socket's own (pause/resume).
'use strict'
const net = require('node:net')
const stream = require('node:stream')
const https = require('node:https')

module.exports = function makeTlcp (api) {
  const { E, certDer, scalarOf } = api._native
  const typeName = (v) => v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v

  function certificates (v, name) {
    if (v instanceof api.Certificate) return [v]
    if (Array.isArray(v)) {
      return v.flatMap((c, i) => {
        if (c instanceof api.Certificate) return [c]
        if (typeof c === 'string' || c instanceof Uint8Array) return api.Certificate.loadAll(c)
        throw new TypeError(`${name}[${i}] must be a Certificate or PEM, not ${typeName(c)}`)
      })
    }
    if (typeof v === 'string' || v instanceof Uint8Array) return api.Certificate.loadAll(v)
    throw new TypeError(`${name} must be a Certificate, an array of them or PEM text, not ${typeName(v)}`)
  }
  function crls (v) {
    if (v === undefined || v === null) return []
    const a = Array.isArray(v) ? v : [v]
    return a.map((c, i) => {
      if (typeof c === 'string') return new TextEncoder().encode(c)
      if (c instanceof Uint8Array) return c
      throw new TypeError(`crls[${i}] must be DER bytes or PEM text, not ${typeName(c)}`)
    })
  }
  function strings (v, name) {
    if (v === undefined || v === null) return undefined
    const a = typeof v === 'string' ? [v] : v
    if (!Array.isArray(a) || !a.every((s) => typeof s === 'string')) throw new TypeError(`${name} must be a string or an array of strings`)
    return a
  }

  // The addon's options from connect()'s: checked here, so the addon sees only its types.
  function clientOptions (o, servername) {
    if (o.ca === undefined || o.ca === null) throw new TypeError('ca (the CA certificates the server must chain to) is required')
    const roots = certificates(o.ca, 'ca').map(certDer)
    const nameCheck = o.nameCheck === undefined ? 'san' : o.nameCheck
    if (!['san', 'cn-fallback', 'none'].includes(nameCheck)) throw new TypeError("nameCheck must be 'san', 'cn-fallback' or 'none'")
    const out = { roots, crls: crls(o.crls), serverName: servername, nameCheck, sni: o.sni === undefined ? !net.isIP(servername) : !!o.sni }
    const suites = strings(o.suite, 'suite')
    if (suites) out.suites = suites
    const alpn = strings(o.ALPNProtocols, 'ALPNProtocols')
    if (alpn) out.alpn = alpn
    const p = o.clientPair
    if (p !== undefined && p !== null) {
      if (typeof p !== 'object') throw new TypeError('clientPair must be {signChain, signKey, encCert, encKey}')
      const sign = certificates(p.signChain !== undefined ? p.signChain : p.signCert, 'clientPair.signChain')
      const [enc] = certificates(p.encCert, 'clientPair.encCert')
      out.signChain = sign.map(certDer)
      out.signKey = scalarOf(p.signKey, 'clientPair.signKey')
      out.encCert = certDer(enc)
      out.encKey = scalarOf(p.encKey, 'clientPair.encKey')
    }
    return out
  }

  const buf = (u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength)

  /** A TLCP connection: a Duplex of plaintext (net.Socket's methods where http needs them). */
  class TlcpSocket extends stream.Duplex {
    constructor (client, socket) {
      super({ allowHalfOpen: false })
      this._c = client
      this._s = socket
      this.encrypted = true
      this.authorized = false
      this._ended = false
      socket.on('data', (chunk) => this._onData(chunk))
      socket.on('end', () => this._onEnd())
      socket.on('error', (e) => this.destroy(e))
      socket.on('close', () => { if (!this.destroyed) this.destroy(this._ended ? undefined : new Error('TLCP: the connection closed')) })
      socket.on('timeout', () => this.emit('timeout'))
      socket.on('connect', () => this.emit('connect'))
      this._flush()
    }

    _flush (cb) {
      let out
      try { out = this._c.takeOutgoing() } catch (e) { if (cb) cb(e); else this.destroy(e); return }
      if (out.length) this._s.write(buf(out), cb)
      else if (cb) cb()
    }

    _deliver (pt) {
      if (pt.length && !this.push(buf(pt))) this._s.pause()
      if (this._c.peerClosed() && !this._ended) { this._ended = true; this.push(null) }
    }

    _onData (chunk) {
      const handshaking = this._c.isHandshaking()
      let pt
      try {
        pt = this._c.feed(chunk)
      } catch (e) {
        this._flush(() => this.destroy(e)) // the alert first
        return
      }
      if (handshaking && !this._c.isHandshaking()) {
        this.authorized = true
        this._flush()
        this.emit('secureConnect')
      } else {
        this._flush()
      }
      this._deliver(pt)
    }

    _onEnd () {
      if (this._ended) return
      let pt
      try { pt = this._c.feedEof() } catch (e) { this.destroy(e); return }
      this._deliver(pt)
      if (!this._ended) {
        // the transport ended without close_notify (a truncation attack, or a peer
        // that does not send it): an error, as Node's TLS client makes of it
        this.destroy(new Error('TLCP: the connection ended without close_notify'))
      }
    }

    _read () { this._s.resume() }

    _write (chunk, encoding, cb) {
      try { this._c.write(chunk) } catch (e) { cb(e); return }
      this._flush(cb)
    }

    _final (cb) {
      // end() during the handshake: close once it is done (the queued data goes first)
      if (this._c.isHandshaking()) {
        const go = () => { this.off('close', go); this._final(cb) }
        this.once('secureConnect', go)
        this.once('close', go)
        return
      }
      if (this.destroyed) { cb(); return }
      try { this._c.closeNotify() } catch {}
      this._flush(() => { this._s.end(); cb() })
    }

    _destroy (err, cb) { this._s.destroy(); cb(err) }

    /** The server's certificates: sign certificate, encryption certificate, then its chain. */
    getPeerCertificates () { return this._c.peerCertificates().map((d) => api.Certificate.fromDer(d)) }
    /** {name, standardName, version} as tls.TLSSocket's getCipher(). */
    getCipher () { const n = this._c.cipherSuite(); return n ? { name: n, standardName: n, version: 'TLCPv1.1' } : undefined }
    getProtocol () { return 'TLCPv1.1' }
    get alpnProtocol () { const p = this._c.alpnProtocol(); return p === null || p === undefined ? false : p }
    isSessionReused () { return this._c.isResumed() }
    setTimeout (ms, cb) { this._s.setTimeout(ms); if (cb) this.once('timeout', cb); return this }
    setNoDelay (v) { this._s.setNoDelay(v); return this }
    setKeepAlive (v, d) { this._s.setKeepAlive(v, d); return this }
    ref () { this._s.ref(); return this }
    unref () { this._s.unref(); return this }
    address () { return this._s.address() }
    get remoteAddress () { return this._s.remoteAddress }
    get remotePort () { return this._s.remotePort }
    get localAddress () { return this._s.localAddress }
    get localPort () { return this._s.localPort }
    get connecting () { return this._s.connecting || this._c.isHandshaking() }
  }

  /**
   * Connects to a TLCP server: {host, port, ca, crls?, suite? (a name or names:
   * ECC_SM4_GCM_SM3, ECC_SM4_CBC_SM3, ECDHE_SM4_GCM_SM3, ECDHE_SM4_CBC_SM3), clientPair?
   * {signChain, signKey, encCert, encKey}, servername? (default host), nameCheck? ('san',
   * 'cn-fallback', 'none'), ALPNProtocols?, timeout? (ms, for the handshake), socket? (a
   * connected Duplex to run over instead of a new TCP connection)}. Returns the Duplex at
   * once; 'secureConnect' (and `callback`) when the handshake is done, 'error' if it fails.
   */
  function connect (options, callback) {
    if (options === null || typeof options !== 'object') throw new TypeError('tlcp.connect takes an options object')
    const o = options
    const host = o.host === undefined ? 'localhost' : o.host
    if (typeof host !== 'string') throw new TypeError(`host must be a string, not ${typeName(host)}`)
    if (o.socket === undefined && (!Number.isInteger(o.port) || o.port < 1 || o.port > 65535)) throw new RangeError('port must be an integer from 1 to 65535')
    const servername = o.servername === undefined || o.servername === null || o.servername === '' ? host : o.servername
    if (typeof servername !== 'string') throw new TypeError(`servername must be a string, not ${typeName(servername)}`)
    if (callback !== undefined && typeof callback !== 'function') throw new TypeError('callback must be a function')
    if (o.timeout !== undefined && (!Number.isInteger(o.timeout) || o.timeout < 1)) throw new RangeError('timeout must be a positive integer (ms)')
    if (o.socket !== undefined && !(o.socket instanceof stream.Duplex)) throw new TypeError(`socket must be a stream.Duplex, not ${typeName(o.socket)}`)
    const opts = clientOptions(o, servername)
    let client
    try { client = new E.TlcpClient(opts) } finally {
      if (opts.signKey) opts.signKey.fill(0)
      if (opts.encKey) opts.encKey.fill(0)
    }
    const socket = o.socket !== undefined ? o.socket : net.connect({ host, port: o.port })
    const t = new TlcpSocket(client, socket)
    if (callback) t.once('secureConnect', callback)
    if (o.timeout !== undefined) {
      const timer = setTimeout(() => t.destroy(new Error('TLCP: handshake timed out')), o.timeout)
      const clear = () => clearTimeout(timer)
      t.once('secureConnect', clear)
      t.once('close', clear)
    }
    return t
  }

  /**
   * An https.Agent whose connections are TLCP: `new Agent({ca, crls, suite, clientPair,
   * nameCheck, ...https.Agent options})`; `https.request(url, {agent})`.
   */
  class Agent extends https.Agent {
    constructor (options) {
      const [tlcpOptions, rest] = settings(options, 'tlcp.Agent')
      super(rest)
      this.tlcpOptions = tlcpOptions
    }

    createConnection (options, cb) {
      try {
        return request(this.tlcpOptions, options.host, options.port, options.servername, options.timeout)
      } catch (e) {
        if (cb) { process.nextTick(cb, e); return }
        throw e
      }
    }
  }

  /**
   * The `connect` function of an undici `Agent`, so that `fetch` reaches a TLCP server:
   * `fetch(url, { dispatcher: new undici.Agent({ connect: tlcp.connector({ca}) }) })`
   * (Node's global `fetch` is undici's; this package does not depend on undici). Takes the
   * options of `tlcp.Agent`; the host, port and server name come from each request's URL.
   */
  function connector (options) {
    const [tlcpOptions, { timeout }] = settings(options, 'tlcp.connector')
    if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1)) throw new RangeError('timeout must be a positive integer (ms)')
    return function connectTlcp (opts, cb) {
      let s
      try {
        s = request(tlcpOptions, opts.hostname || opts.host, opts.port, opts.servername, timeout)
      } catch (e) {
        process.nextTick(cb, e, null)
        return
      }
      const onError = (e) => cb(e, null)
      s.once('error', onError)
      s.once('secureConnect', () => {
        s.removeListener('error', onError)
        cb(null, s)
      })
    }
  }

  // What an Agent and a connector share: their options (`what` names the taker in errors)
  // split into the TLCP settings, checked now rather than at the first request, and the
  // rest; and the connection of one request (host 'localhost', port 443 and the host as
  // server name when absent).
  function settings (options, what) {
    if (options === null || typeof options !== 'object') throw new TypeError(`${what} takes an options object`)
    const { ca, crls: c, suite, clientPair, nameCheck, sni, ...rest } = options
    const tlcpOptions = { ca, crls: c, suite, clientPair, nameCheck, sni }
    clientOptions(tlcpOptions, 'localhost')
    return [tlcpOptions, rest]
  }

  function request (tlcpOptions, host, port, servername, timeout) {
    host = host || 'localhost'
    return connect({ ...tlcpOptions, host, port: Number(port) || 443, servername: servername || host, timeout })
  }

  return Object.freeze({ connect, Agent, connector, TlcpSocket })
}
