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
