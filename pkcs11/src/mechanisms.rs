//! The vendor mechanism numbers for SM2, SM3 and SM4.
//!
//! PKCS#11 (up to 3.2) defines no SM mechanism, key type or parameter (OpenSC pull request
//! 3343; oasis-tcs/pkcs11 issue 119), so every vendor picked numbers in its
//! `CKM_VENDOR_DEFINED` range. [`Mechanisms`] holds one vendor's numbers; the presets are
//! the values published in xipki's PKCS#11 wrapper (`ipkcs11wrapper`,
//! `src/main/resources/org/xipki/pkcs11/wrapper/vendor.conf`: its SANSEC, TASS and SafeNet
//! Luna blocks), the Luna ones also being those Trustonic's TEE HSM adopted (OpenSC 3343).
//! Any other module: fill in the numbers from the vendor's `pkcs11.h`.

use shangmi_sm2::pke::Layout;

/// How a module encodes an SM2 signature's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SignatureEncoding {
    /// `r ‖ s`, 32 bytes each (as PKCS#11 encodes ECDSA).
    Raw,
    /// A DER `SEQUENCE { r INTEGER, s INTEGER }` (xipki's `SM2_SIGNATURE_X962` behaviour).
    Der,
}

/// One vendor's SM2/SM3/SM4 mechanism numbers (`CKM_*`), the SM2 key type (`CKK_*`) and
/// the encodings its SM2 mechanisms use. `None`: the module has no such mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mechanisms {
    /// The convention's name (`sansec`, `tass`, `luna`, or the caller's own).
    pub name: &'static str,
    /// The SM2 key type (`CKK_SM2`), shown by listings; keys are found by label and ID
    /// whatever their type (some modules type SM2 keys `CKK_EC` with the SM2 curve).
    pub key_type: Option<u64>,
    /// SM2 signature of a prepared 32-byte digest e = SM3(Z_A ‖ M) (this crate computes
    /// Z_A and e), the preferred signing path.
    pub sign_digest: Option<u64>,
    /// SM2 signature with SM3 inside the module: the message as data and the signer's
    /// identifier as the mechanism parameter (Z_A computed by the module); used when
    /// `sign_digest` is `None`, with the default identifier `1234567812345678` only.
    pub sign_sm3: Option<u64>,
    /// SM2 decryption (GB/T 32918.4), the ciphertext in [`ciphertext`](Self::ciphertext)'s
    /// layout.
    pub decrypt: Option<u64>,
    /// SM3 digest.
    pub sm3: Option<u64>,
    /// SM4 in ECB mode.
    pub sm4_ecb: Option<u64>,
    /// SM4 in CBC mode (the IV as the parameter).
    pub sm4_cbc: Option<u64>,
    /// The encoding of the SM2 mechanisms' signatures.
    pub signature: SignatureEncoding,
    /// The layout of the SM2 ciphertexts the decryption mechanism takes.
    pub ciphertext: Layout,
}

impl Mechanisms {
    /// SANSEC (三未信安) HSMs, module `upkcs11`: `CKM_SM2_SIGN` 0x80008104 (digest),
    /// `CKM_SM3_SM2` 0x80008100, `CKM_SM2_RAW` 0x80008200, `CKM_SM3_HASH` 0x80009001,
    /// `CKM_SM4_ECB`/`CBC` 0x80000108/0x80000109, `CKK_SM2` 0x80000004. The default.
    pub const SANSEC: Mechanisms = Mechanisms {
        name: "sansec",
        key_type: Some(0x8000_0004),
        sign_digest: Some(0x8000_8104),
        sign_sm3: Some(0x8000_8100),
        decrypt: Some(0x8000_8200),
        sm3: Some(0x8000_9001),
        sm4_ecb: Some(0x8000_0108),
        sm4_cbc: Some(0x8000_0109),
        signature: SignatureEncoding::Raw,
        ciphertext: Layout::C1C3C2,
    };

    /// TASS (江南天安) HSMs: `CKM_SM2` 0x80008000 (digest), `CKM_SM3_SM2` 0x80008100,
    /// `CKM_SM2_RAW` 0x80008200, `CKM_SM3` 0x80000005, `CKM_SM4_ECB`/`CBC`
    /// 0x80000108/0x80000109, `CKK_SM2` 0x80000004; signatures in DER (X9.62 form).
    pub const TASS: Mechanisms = Mechanisms {
        name: "tass",
        key_type: Some(0x8000_0004),
        sign_digest: Some(0x8000_8000),
        sign_sm3: Some(0x8000_8100),
        decrypt: Some(0x8000_8200),
        sm3: Some(0x8000_0005),
        sm4_ecb: Some(0x8000_0108),
        sm4_cbc: Some(0x8000_0109),
        signature: SignatureEncoding::Der,
        ciphertext: Layout::C1C3C2,
    };

    /// Thales (SafeNet) Luna HSMs, and Trustonic's TEE HSM (OpenSC 3343): `CKM_SM2DSA`
    /// 0x80000B21 (digest), `CKM_SM3_SM2DSA` 0x80000B22, `CKM_SM3` 0x80000B01,
    /// `CKM_SM4_ECB`/`CBC` 0x80000B11/0x80000B12, `CKK_SM2` 0x80000016; no SM2 decryption
    /// number is published for Luna.
    pub const LUNA: Mechanisms = Mechanisms {
        name: "luna",
        key_type: Some(0x8000_0016),
        sign_digest: Some(0x8000_0B21),
        sign_sm3: Some(0x8000_0B22),
        decrypt: None,
        sm3: Some(0x8000_0B01),
        sm4_ecb: Some(0x8000_0B11),
        sm4_cbc: Some(0x8000_0B12),
        signature: SignatureEncoding::Raw,
        ciphertext: Layout::C1C3C2,
    };

    /// The presets, by name.
    pub const PRESETS: [Mechanisms; 3] = [Mechanisms::SANSEC, Mechanisms::TASS, Mechanisms::LUNA];

    /// The preset called `name` (`sansec`, `tass`, `luna`; case-insensitive).
    pub fn preset(name: &str) -> Option<Mechanisms> {
        Self::PRESETS
            .into_iter()
            .find(|m| m.name.eq_ignore_ascii_case(name))
    }
}

impl Default for Mechanisms {
    /// [`Mechanisms::SANSEC`].
    fn default() -> Self {
        Mechanisms::SANSEC
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_vendor_defined_and_found_by_name() {
        for m in Mechanisms::PRESETS {
            assert_eq!(Mechanisms::preset(&m.name.to_uppercase()), Some(m));
            for n in [m.key_type, m.sign_digest, m.sign_sm3, m.decrypt, m.sm3]
                .into_iter()
                .flatten()
            {
                assert!(n >= 0x8000_0000, "{}: 0x{n:X}", m.name);
            }
        }
        assert_eq!(Mechanisms::preset("softhsm"), None);
        assert_eq!(Mechanisms::default(), Mechanisms::SANSEC);
    }
}
