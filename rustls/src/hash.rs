//! SM3 as rustls' transcript hash and HMAC-SM3 for HKDF-SM3 (RFC 8998 §3.1: the SM suites
//! use SM3 wherever TLS 1.3 uses the suite's hash).

use digest::Digest;
use rustls::crypto::hash::{self, HashAlgorithm};
use rustls::crypto::hmac as rhmac;
use rustls::crypto::tls13;
use shangmi_sm3::Sm3;
use shangmi_sm3::hazmat::KeyedHmac;
use std::sync::OnceLock;
use zeroize::Zeroize;

/// The value rustls sees as the SM3 hash algorithm. rustls only compares it for equality
/// (resumption, HelloRetryRequest), and TLS 1.2's HashAlgorithm registry has no SM3; 7 is the
/// hash byte of `sm2sig_sm3` (0x0708).
pub const SM3_HASH_ALGORITHM: HashAlgorithm = HashAlgorithm::Unknown(7);

/// SM3 for rustls' transcript hash.
#[derive(Debug)]
pub struct Sm3Hash;

/// The SM3 hash object the suites use.
pub static SM3: Sm3Hash = Sm3Hash;

impl hash::Hash for Sm3Hash {
    fn start(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context {
            state: Sm3::new(),
            empty: true,
        })
    }

    fn hash(&self, data: &[u8]) -> hash::Output {
        if data.is_empty() {
            return hash::Output::new(&SM3_EMPTY);
        }
        hash::Output::new(&Sm3::digest(data))
    }

    fn output_len(&self) -> usize {
        32
    }

    fn algorithm(&self) -> HashAlgorithm {
        SM3_HASH_ALGORITHM
    }
}

/// SM3 of the empty string (GB/T 32905-2016's padding alone: one compression). rustls hashes
/// nothing for every "derived" secret and the resumption binder key (RFC 8446 §7.1), and its
/// `HashAlgorithm` only knows this value for the registry's hashes, so the context returns it.
const SM3_EMPTY: [u8; 32] = [
    0x1a, 0xb2, 0x1d, 0x83, 0x55, 0xcf, 0xa1, 0x7f, 0x8e, 0x61, 0x19, 0x48, 0x31, 0xe8, 0x1a, 0x8f,
    0x22, 0xbe, 0xc8, 0xc7, 0x28, 0xfe, 0xfb, 0x74, 0x7e, 0xd0, 0x35, 0xeb, 0x50, 0x82, 0xaa, 0x2b,
];

/// A transcript hash: the SM3 state and whether anything has been hashed yet (an empty
/// context finishes with [`SM3_EMPTY`] instead of compressing the padding block).
struct Sm3Context {
    state: Sm3,
    empty: bool,
}

impl hash::Context for Sm3Context {
    fn fork_finish(&self) -> hash::Output {
        if self.empty {
            return hash::Output::new(&SM3_EMPTY);
        }
        hash::Output::new(&self.state.clone().finalize())
    }

    fn fork(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context {
            state: self.state.clone(),
            empty: self.empty,
        })
    }

    fn finish(self: Box<Self>) -> hash::Output {
        if self.empty {
            return hash::Output::new(&SM3_EMPTY);
        }
        hash::Output::new(&self.state.finalize())
    }

    fn update(&mut self, data: &[u8]) {
        self.empty &= data.is_empty();
        self.state.update(data);
    }
}

/// HMAC-SM3 (RFC 2104 over SM3), from which rustls derives HKDF-SM3.
#[derive(Debug)]
pub struct HmacSm3;

/// The HMAC-SM3 object the suites use.
pub static HMAC_SM3: HmacSm3 = HmacSm3;

impl rhmac::Hmac for HmacSm3 {
    fn with_key(&self, key: &[u8]) -> Box<dyn rhmac::Key> {
        Box::new(HmacSm3Key(KeyedHmac::new(key)))
    }

    fn hash_output_len(&self) -> usize {
        32
    }
}

struct HmacSm3Key(KeyedHmac);

impl rhmac::Key for HmacSm3Key {
    fn sign_concat(&self, first: &[u8], middle: &[&[u8]], last: &[u8]) -> rhmac::Tag {
        let parts = core::iter::once(first)
            .chain(middle.iter().copied())
            .chain([last]);
        let mut tag = self.0.mac(parts);
        let out = rhmac::Tag::new(&tag);
        tag.zeroize();
        out
    }

    fn tag_len(&self) -> usize {
        32
    }
}

/// HKDF-SM3 (RFC 5869 with HMAC-SM3), as the suites' key schedule: rustls' `Hkdf` written on
/// the keyed HMAC-SM3 state directly. Each expander keeps HMAC-SM3 keyed with its PRK (the
/// inner and outer key blocks compressed once) and clones it per output block, and the two
/// values that depend on no secret are keyed once per process: HMAC-SM3 under the absent
/// salt (HashLen zero bytes, every PSK handshake's early secret) and the expander of
/// HKDF-Extract(0, 0) (every full handshake's early secret).
#[derive(Debug)]
pub struct HkdfSm3;

/// The HKDF-SM3 object the suites use.
pub static HKDF_SM3: HkdfSm3 = HkdfSm3;

/// SM3's output length (HashLen).
const HASH_LEN: usize = 32;

/// HMAC-SM3 keyed with HashLen zero bytes, the salt RFC 5869 §2.2 takes when none is given.
fn zero_salt() -> &'static KeyedHmac {
    static KEY: OnceLock<KeyedHmac> = OnceLock::new();
    KEY.get_or_init(|| KeyedHmac::new(&[0; HASH_LEN]))
}

/// HKDF-Extract(salt, ikm) with the salt's keyed HMAC-SM3 given, as an expander.
fn extract(salt: &KeyedHmac, ikm: &[u8]) -> Sm3Expander {
    let mut prk = salt.mac([ikm]);
    let expander = Sm3Expander(KeyedHmac::new(&prk));
    prk.zeroize();
    expander
}

impl tls13::Hkdf for HkdfSm3 {
    fn extract_from_zero_ikm(&self, salt: Option<&[u8]>) -> Box<dyn tls13::HkdfExpander> {
        let Some(salt) = salt else {
            static EARLY: OnceLock<Sm3Expander> = OnceLock::new();
            let early = EARLY.get_or_init(|| extract(zero_salt(), &[0; HASH_LEN]));
            return Box::new(early.clone());
        };
        Box::new(extract(&KeyedHmac::new(salt), &[0; HASH_LEN]))
    }

    fn extract_from_secret(
        &self,
        salt: Option<&[u8]>,
        secret: &[u8],
    ) -> Box<dyn tls13::HkdfExpander> {
        Box::new(match salt {
            Some(salt) => extract(&KeyedHmac::new(salt), secret),
            None => extract(zero_salt(), secret),
        })
    }

    fn expander_for_okm(&self, okm: &tls13::OkmBlock) -> Box<dyn tls13::HkdfExpander> {
        Box::new(Sm3Expander(KeyedHmac::new(okm.as_ref())))
    }

    fn hmac_sign(&self, key: &tls13::OkmBlock, message: &[u8]) -> rhmac::Tag {
        let mut tag = KeyedHmac::new(key.as_ref()).mac([message]);
        let out = rhmac::Tag::new(&tag);
        tag.zeroize();
        out
    }
}

/// HKDF-Expand under one PRK: HMAC-SM3 keyed with it once.
#[derive(Clone)]
struct Sm3Expander(KeyedHmac);

impl Sm3Expander {
    /// T(1) ‖ T(2) ‖ .. into `out` (RFC 5869 §2.3), for `out` of at most 255 blocks.
    fn expand(&self, info: &[&[u8]], out: &mut [u8]) {
        // T(n) = HMAC(PRK, T(n - 1) ‖ info ‖ n), T(0) empty.
        let mut t = [0u8; HASH_LEN];
        for (n, chunk) in out.chunks_mut(HASH_LEN).enumerate() {
            let counter = [n as u8 + 1];
            let prev: &[u8] = if n == 0 { &[] } else { &t };
            let parts = core::iter::once(prev)
                .chain(info.iter().copied())
                .chain([counter.as_slice()]);
            let next = self.0.mac(parts);
            t = next;
            chunk.copy_from_slice(&t[..chunk.len()]);
        }
        t.zeroize();
    }
}
impl tls13::HkdfExpander for Sm3Expander {
    fn expand_slice(
        &self,
        info: &[&[u8]],
        output: &mut [u8],
    ) -> Result<(), tls13::OutputLengthError> {
        if output.len() > 255 * HASH_LEN {
            return Err(tls13::OutputLengthError);
        }
        self.expand(info, output);
        Ok(())
    }

    fn expand_block(&self, info: &[&[u8]]) -> tls13::OkmBlock {
        let mut block = [0u8; HASH_LEN];
        self.expand(info, &mut block);
        let okm = tls13::OkmBlock::new(&block);
        block.zeroize();
        okm
    }

    fn hash_len(&self) -> usize {
        HASH_LEN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::crypto::hash::Hash as _;
    use rustls::crypto::tls13::{Hkdf as _, HkdfUsingHmac, OkmBlock};

    #[test]
    fn sm3_of_nothing_is_the_constant() {
        assert_eq!(SM3_EMPTY, <[u8; 32]>::from(Sm3::digest(b"")));
        assert_eq!(SM3.hash(b"").as_ref(), &SM3_EMPTY);
        assert_eq!(SM3.start().finish().as_ref(), &SM3_EMPTY);
        // Empty updates keep it empty; the first byte ends that, in a fork too.
        let mut ctx = SM3.start();
        ctx.update(b"");
        assert_eq!(ctx.fork_finish().as_ref(), &SM3_EMPTY);
        let fork = ctx.fork();
        ctx.update(b"abc");
        let abc = Sm3::digest(b"abc");
        assert_eq!(ctx.fork_finish().as_ref(), &abc[..]);
        assert_eq!(ctx.finish().as_ref(), &abc[..]);
        assert_eq!(fork.finish().as_ref(), &SM3_EMPTY);
        assert_eq!(SM3.hash(b"abc").as_ref(), &abc[..]);
    }

    /// Byte strings of the lengths HKDF's edge cases sit at (empty, one block of SM3 and
    /// either side of it, longer than a block, which HMAC hashes first).
    fn bytes(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn hkdf_sm3_matches_rustls_hkdf_over_hmac_sm3() {
        // rustls' own HKDF construction over the keyed HMAC-SM3 (RFC 5869 step by step).
        let generic = HkdfUsingHmac(&HMAC_SM3);
        let lens = [0usize, 1, 32, 55, 64, 65, 100];
        let mut salts: Vec<Option<Vec<u8>>> = lens.iter().map(|&n| Some(bytes(n, 7))).collect();
        salts.push(None);
        salts.push(Some(vec![0; HASH_LEN]));
        let info_a = bytes(13, 1);
        let info_b = bytes(60, 2);
        let info: &[&[u8]] = &[&info_a, b"", &info_b];
        for salt in &salts {
            let salt = salt.as_deref();
            let pairs = lens.iter().map(|&n| {
                let secret = bytes(n, 3);
                (
                    HKDF_SM3.extract_from_secret(salt, &secret),
                    generic.extract_from_secret(salt, &secret),
                )
            });
            let zero = (
                HKDF_SM3.extract_from_zero_ikm(salt),
                generic.extract_from_zero_ikm(salt),
            );
            for (ours, theirs) in pairs.chain([zero]) {
                assert_eq!(ours.hash_len(), 32);
                let (a, b) = (ours.expand_block(info), theirs.expand_block(info));
                assert_eq!(a.as_ref(), b.as_ref(), "salt {salt:?}");
                for out_len in [1, 31, 32, 33, 64, 100, 255 * 32] {
                    let (mut a, mut b) = (vec![0u8; out_len], vec![1u8; out_len]);
                    ours.expand_slice(info, &mut a).expect("length");
                    theirs.expand_slice(info, &mut b).expect("length");
                    assert!(a == b, "salt {salt:?}, {out_len} bytes");
                }
                let mut long = vec![0u8; 255 * 32 + 1];
                assert!(ours.expand_slice(info, &mut long).is_err());
            }
        }
        for n in [0usize, 32, 64] {
            let okm = OkmBlock::new(&bytes(n, 9));
            let msg = bytes(70, 4);
            assert_eq!(
                HKDF_SM3.hmac_sign(&okm, &msg).as_ref(),
                generic.hmac_sign(&okm, &msg).as_ref()
            );
            assert_eq!(
                HKDF_SM3.expander_for_okm(&okm).expand_block(info).as_ref(),
                generic.expander_for_okm(&okm).expand_block(info).as_ref()
            );
        }
    }
}
