// Types of the `shangmi` package (js/index.js over the native or the wasm engine).

/** Which engine was loaded: the native addon or the WebAssembly module. */
export const engine: 'native' | 'wasm'

export function sm3Digest (data: Uint8Array): Uint8Array
export function hmacSm3 (key: Uint8Array, data: Uint8Array): Uint8Array
/** SM4-ECB (legacy formats only); PKCS#7 unless padding is false. */
export function sm4EcbEncrypt (key: Uint8Array, data: Uint8Array, padding?: boolean): Uint8Array
export function sm4EcbDecrypt (key: Uint8Array, data: Uint8Array, padding?: boolean): Uint8Array
export function sm4CbcEncrypt (key: Uint8Array, iv: Uint8Array, data: Uint8Array, padding?: boolean): Uint8Array
export function sm4CbcDecrypt (key: Uint8Array, iv: Uint8Array, data: Uint8Array, padding?: boolean): Uint8Array
export function sm4Ctr (key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array
/** 12-byte nonce; ciphertext ‖ 16-byte tag. */
export function sm4GcmEncrypt (key: Uint8Array, nonce: Uint8Array, data: Uint8Array, aad?: Uint8Array): Uint8Array
/** Throws "invalid tag" when the tag does not verify. */
export function sm4GcmDecrypt (key: Uint8Array, nonce: Uint8Array, data: Uint8Array, aad?: Uint8Array): Uint8Array
export function sm4CcmEncrypt (key: Uint8Array, nonce: Uint8Array, data: Uint8Array, aad?: Uint8Array): Uint8Array
export function sm4CcmDecrypt (key: Uint8Array, nonce: Uint8Array, data: Uint8Array, aad?: Uint8Array): Uint8Array
/** 32-byte key, 16-byte tweak; GB/T 17964 when gb, else IEEE 1619. */
export function sm4XtsEncrypt (key: Uint8Array, tweak: Uint8Array, data: Uint8Array, gb?: boolean): Uint8Array
export function sm4XtsDecrypt (key: Uint8Array, tweak: Uint8Array, data: Uint8Array, gb?: boolean): Uint8Array
export function sm4Cmac (key: Uint8Array, data: Uint8Array): Uint8Array

export class Sm3Hasher {
  constructor ()
  update (data: Uint8Array): this
  digest (): Uint8Array
  free (): void
}

export type Sm2Layout = 'C1C3C2' | 'C1C2C3' | 'C1C3C2_RAW' | 'C1C2C3_RAW' | 'C1C3C2_COMPRESSED' | 'C1C2C3_COMPRESSED' | 'ASN1'

export class Sm2PublicKey {
  private constructor ()
  static fromBytes (data: Uint8Array): Sm2PublicKey
  static fromPem (pem: string): Sm2PublicKey
  toBytes (compressed?: boolean): Uint8Array
  toPem (): string
  verify (sig: Uint8Array, msg: Uint8Array, id?: Uint8Array): boolean
  encrypt (msg: Uint8Array, layout?: Sm2Layout): Uint8Array
  free (): void
}

export class Sm2PrivateKey {
  private constructor ()
  static generate (): Sm2PrivateKey
  static fromBytes (d: Uint8Array): Sm2PrivateKey
  static fromPem (pem: string): Sm2PrivateKey
  toBytes (): Uint8Array
  toPem (): string
  publicKey (): Sm2PublicKey
  sign (msg: Uint8Array, id?: Uint8Array, der?: boolean): Uint8Array
  decrypt (ct: Uint8Array, layout?: Sm2Layout): Uint8Array
  free (): void
}

export interface Sm2KeyExchangeOptions {
  initiator: boolean
  privateKey: Uint8Array
  ephemeralPrivateKey: Uint8Array
  peerPublicKey: Uint8Array
  peerEphemeralPublicKey: Uint8Array
  id?: Uint8Array
  peerId?: Uint8Array
  /** Bytes of key to derive (default 16). */
  keyLength?: number
  /** The peer's S_A / S_B: checked, a mismatch throws. */
  peerConfirmation?: Uint8Array
}
export function sm2KeyExchange (o: Sm2KeyExchangeOptions): { key: Uint8Array, confirmation: Uint8Array }

// --- SM9 (native engine only: NativeRequiredError on the wasm engine) ---------------------
export class Sm9SignMasterPublicKey {
  private constructor ()
  static fromBytes (data: Uint8Array): Sm9SignMasterPublicKey
  toBytes (): Uint8Array
  /** DER or h‖S (96 or 97 bytes); false when it does not verify. */
  verify (id: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean
  free (): void
}
export class Sm9SigningKey {
  private constructor ()
  static fromBytes (data: Uint8Array, masterPublicKey: Sm9SignMasterPublicKey): Sm9SigningKey
  toBytes (): Uint8Array
  masterPublicKey (): Sm9SignMasterPublicKey
  /** DER by default; h‖x(S)‖y(S) (96 bytes) when der is false. */
  sign (msg: Uint8Array, der?: boolean): Uint8Array
  free (): void
}
export class Sm9SignMasterKey {
  private constructor ()
  static generate (): Sm9SignMasterKey
  static fromBytes (ks: Uint8Array): Sm9SignMasterKey
  toBytes (): Uint8Array
  publicKey (): Sm9SignMasterPublicKey
  extract (id: Uint8Array): Sm9SigningKey
  free (): void
}
export class Sm9EncryptMasterPublicKey {
  private constructor ()
  static fromBytes (data: Uint8Array): Sm9EncryptMasterPublicKey
  toBytes (): Uint8Array
  /** C1‖C3‖C2 by default, DER when der. */
  encrypt (id: Uint8Array, msg: Uint8Array, der?: boolean): Uint8Array
  free (): void
}
export class Sm9EncryptPrivateKey {
  private constructor ()
  static fromBytes (data: Uint8Array, masterPublicKey: Sm9EncryptMasterPublicKey, id: Uint8Array): Sm9EncryptPrivateKey
  toBytes (): Uint8Array
  decrypt (ct: Uint8Array): Uint8Array
  free (): void
}
export class Sm9EncryptMasterKey {
  private constructor ()
  static generate (): Sm9EncryptMasterKey
  static fromBytes (ke: Uint8Array): Sm9EncryptMasterKey
  toBytes (): Uint8Array
  publicKey (): Sm9EncryptMasterPublicKey
  extract (id: Uint8Array): Sm9EncryptPrivateKey
  free (): void
}

// --- ZUC (ZUC-128 on both engines; ZUC-256 native only) ---------------------------------
/** 128-EEA3 over the first bitLength bits of data (all by default); bearer 0-31, direction 0/1. */
export function zucEea3 (key: Uint8Array, count: number, bearer: number, direction: number, data: Uint8Array, bitLength?: number): Uint8Array
/** 128-EIA3: the 4-byte MAC. */
export function zucEia3 (key: Uint8Array, count: number, bearer: number, direction: number, data: Uint8Array, bitLength?: number): Uint8Array
/** data XOR the ZUC-128 (16-byte key and IV) or ZUC-256 (32-byte key, 25-byte IV) keystream. */
export function zucApply (key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array
export function zucKeystream (key: Uint8Array, iv: Uint8Array, length: number): Uint8Array
export function zuc256Mac (key: Uint8Array, iv: Uint8Array, data: Uint8Array, tagSize?: 4 | 8 | 16): Uint8Array

// --- certificates, CMS, PKCS#12, TLCP (native engine only) --------------------------------
/** What needs the native addon throws this on the wasm engine (code ERR_SHANGMI_NATIVE_REQUIRED). */
export class NativeRequiredError extends Error { code: 'ERR_SHANGMI_NATIVE_REQUIRED' }
export type Purpose = 'any' | 'tls-server' | 'tls-client' | 'tlcp-sign' | 'tlcp-enc' | 'cms-sign'
export type Profile = 'ca' | 'tls-server' | 'tls-client' | 'tlcp-sign' | 'tlcp-enc'
export class Certificate {
  private constructor ()
  static fromDer (der: Uint8Array): Certificate
  static fromPem (pem: string | Uint8Array): Certificate
  static loadAll (data: string | Uint8Array): Certificate[]
  readonly subject: string
  readonly issuer: string
  readonly commonName?: string
  /** hex */
  readonly serial: string
  readonly notBefore: Date
  readonly notAfter: Date
  readonly subjectAltNames: string[]
  readonly isCa: boolean
  readonly keyUsage: string[]
  readonly signatureAlgorithm: string
  publicKey (): Sm2PublicKey
  toDer (): Uint8Array
  toPem (): string
  fingerprint (): string
  equals (other: unknown): boolean
  show (): string
}
export class CertificateRequest {
  private constructor ()
  static create (key: Sm2PrivateKey, subject: string, sans?: string[]): CertificateRequest
  static fromDer (der: Uint8Array): CertificateRequest
  static fromPem (pem: string | Uint8Array): CertificateRequest
  readonly subject: string
  readonly subjectAltNames: string[]
  publicKey (): Sm2PublicKey
  toDer (): Uint8Array
  toPem (): string
}
export interface IssueOptions { profile?: Profile, days?: number, sans?: string[], pathLen?: number }
export function certSelfSigned (key: Sm2PrivateKey, subject: string, options?: IssueOptions): Certificate
export function certIssue (issuer: Certificate, issuerKey: Sm2PrivateKey, publicKey: Sm2PublicKey, subject: string, options?: IssueOptions): Certificate
export function certIssueFromRequest (issuer: Certificate, issuerKey: Sm2PrivateKey, request: CertificateRequest, options?: { profile?: Profile, days?: number }): Certificate
/** DER. */
export function crlIssue (issuer: Certificate, issuerKey: Sm2PrivateKey, serials: (string | Uint8Array)[], options?: { days?: number, number?: number }): Uint8Array
export function verifyChain (leaf: Certificate, roots: Certificate[], options?: { intermediates?: Certificate[], crls?: (string | Uint8Array)[], purpose?: Purpose, host?: string, time?: Date | number }): Certificate[]
export function cmsSign (content: Uint8Array, cert: Certificate, key: Sm2PrivateKey, options?: { chain?: Certificate[], detached?: boolean, rfc5652?: boolean }): Uint8Array
export function cmsVerify (message: Uint8Array | string, roots: Certificate[], options?: { detached?: Uint8Array, certs?: Certificate[], purpose?: Purpose, time?: Date | number }): { content: Uint8Array, signers: Certificate[] }
export function cmsEncrypt (content: Uint8Array, recipients: Certificate[], options?: { rfc5652?: boolean }): Uint8Array
export function cmsDecrypt (message: Uint8Array | string, cert: Certificate, key: Sm2PrivateKey): Uint8Array
export function pkcs12Import (data: Uint8Array, password: string): { key: Sm2PrivateKey, cert: Certificate, chain: Certificate[] }
export function pkcs12Export (cert: Certificate, key: Sm2PrivateKey, password: string, options?: { chain?: Certificate[], sm?: boolean }): Uint8Array

type CertsLike = Certificate | (Certificate | string | Uint8Array)[] | string | Uint8Array
export interface TlcpConnectOptions {
  host?: string
  port?: number
  /** The CA certificates both server certificates must chain to. */
  ca: CertsLike
  crls?: string | Uint8Array | (string | Uint8Array)[]
  suite?: 'ECC_SM4_GCM_SM3' | 'ECC_SM4_CBC_SM3' | 'ECDHE_SM4_GCM_SM3' | 'ECDHE_SM4_CBC_SM3' | string[]
  clientPair?: { signChain: CertsLike, signKey: Sm2PrivateKey, encCert: CertsLike, encKey: Sm2PrivateKey }
  servername?: string
  nameCheck?: 'san' | 'cn-fallback' | 'none'
  sni?: boolean
  ALPNProtocols?: string[]
  /** Handshake timeout, ms. */
  timeout?: number
  /** A connected Duplex to run over instead of a new TCP connection. */
  socket?: import('node:stream').Duplex
}
export interface TlcpSocket extends import('node:stream').Duplex {
  readonly encrypted: true
  readonly authorized: boolean
  getPeerCertificates (): Certificate[]
  getCipher (): { name: string, standardName: string, version: 'TLCPv1.1' } | undefined
  getProtocol (): 'TLCPv1.1'
  isSessionReused (): boolean
  setTimeout (ms: number, cb?: () => void): this
  setNoDelay (v?: boolean): this
  setKeepAlive (v?: boolean, delay?: number): this
}
export const tlcp: {
  connect (options: TlcpConnectOptions, callback?: () => void): TlcpSocket
  Agent: new (options: Omit<TlcpConnectOptions, 'host' | 'port' | 'servername' | 'socket' | 'timeout'> & import('node:https').AgentOptions) => import('node:https').Agent
  /** undici's `connect` option: `new undici.Agent({ connect: tlcp.connector({ ca }) })` as `fetch`'s dispatcher. */
  connector (options: Omit<TlcpConnectOptions, 'host' | 'port' | 'servername' | 'socket'>): (options: { hostname?: string, host?: string, port?: string | number, servername?: string }, callback: (err: Error | null, socket: TlcpSocket | null) => void) => void
}

// --- sm-crypto 0.5 ----------------------------------------------------------------------
type Bytes = Uint8Array | number[]
type Point = { privateKey: string, publicKey: string, k: bigint, x1: bigint }
export const sm2: {
  generateKeyPairHex (a?: number | string | Bytes, b?: number | { nextBytes (a: number[]): void }, c?: unknown): { privateKey: string, publicKey: string }
  getPublicKeyFromPrivateKey (privateKey: string): string
  compressPublicKeyHex (publicKey: string): string
  comparePublicKeyHex (a: string, b: string): boolean
  verifyPublicKey (publicKey: string): boolean
  doEncrypt (msg: string | Bytes, publicKey: string, cipherMode?: 0 | 1): string
  doDecrypt (data: string, privateKey: string, cipherMode?: 0 | 1, options?: { output?: 'string' }): string
  doDecrypt (data: string, privateKey: string, cipherMode: 0 | 1, options: { output: 'array' }): number[]
  doSignature (msg: string | Bytes, privateKey: string, options?: { pointPool?: Point[], der?: boolean, hash?: boolean, publicKey?: string, userId?: string }): string
  doVerifySignature (msg: string | Bytes, signHex: string, publicKey: string, options?: { der?: boolean, hash?: boolean, userId?: string }): boolean
  getPoint (): Point
}
export function sm3 (input: string | Bytes, options?: { key: string | Bytes, mode?: 'hmac' }): string
type Sm4Options = { mode?: 'ecb' | 'cbc', iv?: string | Bytes, padding?: 'pkcs#7' | 'pkcs#5' | 'none' | null, output?: 'string' | 'array' }
export const sm4: {
  encrypt (input: string | Bytes, key: string | Bytes, options?: Sm4Options): string | number[]
  decrypt (input: string | Bytes, key: string | Bytes, options?: Sm4Options): string | number[]
}

/** Resolves to this module (in browsers and bundlers: loads the wasm engine first). */
export function load (): Promise<typeof import('./index')>
