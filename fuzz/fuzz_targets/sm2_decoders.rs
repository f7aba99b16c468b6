//! Structure-aware fuzzing of every SM2 decoder: the input picks a key, a signature or a
//! ciphertext, builds a valid encoding of it (keys and signatures with RustCrypto's `sm2`
//! 0.14 encoders, so ours must read another implementation's output; ciphertexts with ours),
//! then applies a few edits (bit flips, byte changes, insertions, deletions, truncation,
//! length-byte nudges) and hands the result to our decoder. Checked:
//!
//! * no input panics;
//! * an unedited encoding decodes to the value it was made from;
//! * whatever decodes after the edits is a value our encoder writes back and reads again to
//!   the same value; DER signatures are canonical (re-encoding gives the input bytes);
//! * an edited ciphertext that decrypts gives the original message (anything else would be
//!   a forgery past SM3).
//!
//! Decoders: DER and 64-byte signatures, SEC1 points (compressed and not), SPKI DER and PEM
//! (three algorithm-identifier forms), PKCS#8 DER and PEM (three forms), SEC1 private keys
//! in DER and PEM, the any-format loaders (`secret_key_from_der`, `secret_key_from_pem`,
//! `public_key_from_pem`), encrypted PKCS#8 in DER and PEM (PBKDF2-HMAC-SM3 + SM4-CBC and
//! PBKDF2-HMAC-SHA-256 + AES-256-CBC, right and wrong password), the ASN.1 ciphertext and
//! the six byte layouts of a ciphertext. Encrypted keys are made with 2 PBKDF2 iterations,
//! and inputs whose edits ask for more than 4096 are not decoded (a decoder runs up to ten
//! million, which would only slow the fuzzer down).

#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use shangmi_sm2::SecretKey;
use shangmi_sm2::dsa::Signature;
use shangmi_sm2::elliptic_curve::pkcs8::LineEnding;
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::keys;
use shangmi_sm2::pke::{self, DecryptingKey, Layout};

/// Which decoder, with what its valid input is made from.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Decoder {
    SignatureDer,
    SignatureRaw,
    Sec1Point {
        compressed: bool,
    },
    /// `form` 0-2: our encoder in that `AlgorithmForm`; 3: RustCrypto's encoder.
    Spki {
        form: u8,
        pem: bool,
    },
    Pkcs8 {
        form: u8,
        pem: bool,
    },
    Sec1Key {
        pem: bool,
    },
    EncryptedPkcs8 {
        sm4: bool,
        pem: bool,
        wrong_password: bool,
    },
    CiphertextDer {
        len: u8,
    },
    Ciphertext {
        layout: u8,
        len: u8,
    },
}

/// One change to the valid encoding; positions wrap around its length.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Edit {
    Flip {
        pos: u16,
        bit: u8,
    },
    Set {
        pos: u16,
        byte: u8,
    },
    Insert {
        pos: u16,
        byte: u8,
    },
    Remove {
        pos: u16,
    },
    Truncate {
        len: u16,
    },
    /// Adds `delta` to a byte: DER lengths and INTEGER leading bytes move by small steps.
    Nudge {
        pos: u16,
        delta: i8,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    secret: [u8; 32],
    r: [u8; 32],
    s: [u8; 32],
    decoder: Decoder,
    edits: Vec<Edit>,
}

const FORMS: [keys::AlgorithmForm; 3] = [
    keys::AlgorithmForm::EcPublicKey,
    keys::AlgorithmForm::Sm2,
    keys::AlgorithmForm::Sm2Bare,
];

/// Our encoder's form for `form` 0-2, `None` (RustCrypto's encoder) otherwise.
fn algorithm_form(form: u8) -> Option<keys::AlgorithmForm> {
    FORMS.get(usize::from(form % 4)).copied()
}

/// A decoded secret key re-encodes in every form and reads back the same; with `expect`,
/// it is that key.
fn check_secret(sk: &SecretKey, expect: Option<&SecretKey>) {
    for f in FORMS {
        let again = keys::secret_key_to_pkcs8_der(sk, f).expect("encode");
        let back = keys::secret_key_from_pkcs8_der(again.as_bytes()).expect("round trip");
        assert_eq!(back.to_bytes(), sk.to_bytes());
    }
    if let Some(want) = expect {
        assert_eq!(sk.to_bytes(), want.to_bytes());
    }
}

/// The base64 body of the first PEM block, decoded (for the iteration guard only).
fn pem_body(text: &str) -> Option<Vec<u8>> {
    use base64ct::{Base64, Encoding};
    let begin = text.find("-----BEGIN ")?;
    let body_start = begin + text[begin..].find('\n')? + 1;
    let body_end = body_start + text[body_start..].find("-----END ")?;
    let body: String = text[body_start..body_end].split_whitespace().collect();
    Base64::decode_vec(&body).ok()
}

/// The largest value of a short DER INTEGER (`02 01..=04 …`) anywhere in `der`: an upper
/// bound on the PBKDF2 iteration count a decoder would run.
fn max_der_integer(der: &[u8]) -> u64 {
    der.windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] == 0x02 && (1..=4).contains(&w[1]))
        .filter_map(|(i, w)| der.get(i + 2..i + 2 + usize::from(w[1])))
        .map(|v| v.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b)))
        .max()
        .unwrap_or(0)
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits.iter().take(4) {
        let at = |pos: u16, len: usize| usize::from(pos) % len.max(1);
        match *e {
            Edit::Flip { pos, bit } if !bytes.is_empty() => {
                let i = at(pos, bytes.len());
                bytes[i] ^= 1 << (bit % 8);
            }
            Edit::Set { pos, byte } if !bytes.is_empty() => {
                let i = at(pos, bytes.len());
                bytes[i] = byte;
            }
            Edit::Insert { pos, byte } => {
                let i = at(pos, bytes.len() + 1);
                bytes.insert(i, byte);
            }
            Edit::Remove { pos } if !bytes.is_empty() => {
                let i = at(pos, bytes.len());
                bytes.remove(i);
            }
            Edit::Truncate { len } => bytes.truncate(usize::from(len)),
            Edit::Nudge { pos, delta } if !bytes.is_empty() => {
                let i = at(pos, bytes.len());
                bytes[i] = bytes[i].wrapping_add_signed(delta);
            }
            _ => {}
        }
    }
    bytes
}

/// The secret key for `seed`, or a fixed one when `seed` is not in [1, n-1].
fn secret(seed: &[u8; 32]) -> (SecretKey, rustcrypto_sm2::SecretKey) {
    let seed = if SecretKey::from_bytes(&(*seed).into()).is_ok() {
        *seed
    } else {
        [7u8; 32]
    };
    (
        SecretKey::from_bytes(&seed.into()).expect("in range"),
        rustcrypto_sm2::SecretKey::from_bytes(&seed.into()).expect("in range"),
    )
}

fuzz_target!(|input: Input| {
    let edited = !input.edits.is_empty();
    match input.decoder {
        Decoder::SignatureDer | Decoder::SignatureRaw => {
            let Ok(theirs) = rustcrypto_sm2::dsa::Signature::from_scalars(input.r, input.s) else {
                return;
            };
            let raw = matches!(input.decoder, Decoder::SignatureRaw);
            let valid = if raw {
                theirs.to_bytes().to_vec()
            } else {
                theirs.to_der().as_bytes().to_vec()
            };
            let bytes = apply(valid, &input.edits);
            let ours = if raw {
                Signature::from_slice(&bytes)
            } else {
                Signature::from_der(&bytes)
            };
            match ours {
                Ok(sig) => {
                    // Canonical both ways: the bytes are what we would write.
                    if raw {
                        assert_eq!(&sig.to_bytes()[..], &bytes[..]);
                    } else {
                        assert_eq!(sig.to_der().as_ref(), &bytes[..], "DER must be canonical");
                    }
                    if !edited {
                        assert_eq!((sig.r(), sig.s()), (&input.r, &input.s));
                    }
                }
                Err(_) => assert!(edited, "refused RustCrypto's signature encoding"),
            }
        }
        Decoder::Sec1Point { compressed } => {
            let (_, theirs) = secret(&input.secret);
            let valid = theirs
                .public_key()
                .to_sec1_point(compressed)
                .as_bytes()
                .to_vec();
            let bytes = apply(valid, &input.edits);
            match keys::public_key_from_sec1(&bytes) {
                Ok(pk) => assert_eq!(pk.to_sec1_point(bytes.len() == 33).as_bytes(), &bytes[..]),
                Err(_) => assert!(edited, "refused a SEC1 point"),
            }
        }
        Decoder::Spki { form, pem } => {
            use rustcrypto_sm2::pkcs8::EncodePublicKey as _;
            let (ours, theirs) = secret(&input.secret);
            let valid = match (algorithm_form(form), pem) {
                (Some(f), false) => keys::public_key_to_spki_der(&ours.public_key(), f)
                    .expect("encode")
                    .into_vec(),
                (Some(f), true) => {
                    keys::public_key_to_spki_pem(&ours.public_key(), f, LineEnding::LF)
                        .expect("encode")
                        .into_bytes()
                }
                (None, false) => theirs
                    .public_key()
                    .to_public_key_der()
                    .expect("encode")
                    .into_vec(),
                (None, true) => theirs
                    .public_key()
                    .to_public_key_pem(LineEnding::LF)
                    .expect("encode")
                    .into_bytes(),
            };
            let bytes = apply(valid, &input.edits);
            let decoded = if pem {
                let Ok(text) = core::str::from_utf8(&bytes) else {
                    return;
                };
                let any = keys::public_key_from_pem(text);
                let spki = keys::public_key_from_spki_pem(text);
                assert_eq!(any.is_ok(), spki.is_ok(), "the two PEM loaders disagree");
                spki
            } else {
                keys::public_key_from_spki_der(&bytes)
            };
            match decoded {
                Ok(pk) => {
                    for f in FORMS {
                        let again = keys::public_key_to_spki_der(&pk, f).expect("encode");
                        assert_eq!(keys::public_key_from_spki_der(again.as_bytes()), Ok(pk));
                    }
                    if !edited {
                        assert_eq!(pk, ours.public_key());
                    }
                }
                Err(_) => assert!(edited, "refused a valid SPKI"),
            }
        }
        Decoder::Pkcs8 { .. } | Decoder::Sec1Key { .. } => {
            use rustcrypto_sm2::pkcs8::EncodePrivateKey as _;
            let (ours, theirs) = secret(&input.secret);
            let (valid, pem) = match input.decoder {
                Decoder::Pkcs8 { form, pem } => (
                    match (algorithm_form(form), pem) {
                        (Some(f), false) => keys::secret_key_to_pkcs8_der(&ours, f)
                            .expect("encode")
                            .as_bytes()
                            .to_vec(),
                        (Some(f), true) => keys::secret_key_to_pkcs8_pem(&ours, f, LineEnding::LF)
                            .expect("encode")
                            .as_bytes()
                            .to_vec(),
                        (None, false) => theirs.to_pkcs8_der().expect("encode").as_bytes().to_vec(),
                        (None, true) => theirs
                            .to_pkcs8_pem(LineEnding::LF)
                            .expect("encode")
                            .as_bytes()
                            .to_vec(),
                    },
                    pem,
                ),
                Decoder::Sec1Key { pem: false } => {
                    (theirs.to_sec1_der().expect("encode").to_vec(), false)
                }
                _ => (
                    theirs
                        .to_sec1_pem(LineEnding::LF)
                        .expect("encode")
                        .as_bytes()
                        .to_vec(),
                    true,
                ),
            };
            let pkcs8 = matches!(input.decoder, Decoder::Pkcs8 { .. });
            let bytes = apply(valid, &input.edits);
            let decoded = if pem {
                let Ok(text) = core::str::from_utf8(&bytes) else {
                    return;
                };
                let any = keys::secret_key_from_pem(text);
                if pkcs8 {
                    let strict = keys::secret_key_from_pkcs8_pem(text);
                    // The any-format loader takes all the strict one does.
                    if let Ok(k) = &strict {
                        assert_eq!(any.as_ref().map(SecretKey::to_bytes), Ok(k.to_bytes()));
                    }
                    strict
                } else {
                    any
                }
            } else {
                let any = keys::secret_key_from_der(&bytes);
                let strict = if pkcs8 {
                    keys::secret_key_from_pkcs8_der(&bytes)
                } else {
                    keys::secret_key_from_sec1_der(&bytes)
                };
                if let Ok(k) = &strict {
                    assert_eq!(any.as_ref().map(SecretKey::to_bytes), Ok(k.to_bytes()));
                }
                strict
            };
            match decoded {
                Ok(sk) => check_secret(&sk, (!edited).then_some(&ours)),
                Err(_) => assert!(edited, "refused a valid private key"),
            }
        }
        Decoder::EncryptedPkcs8 {
            sm4,
            pem,
            wrong_password,
        } => {
            let (ours, _) = secret(&input.secret);
            let scheme = if sm4 {
                keys::EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations: 2 }
            } else {
                keys::EncryptionScheme::Pbkdf2Sha256Aes256Cbc { iterations: 2 }
            };
            // Salt and IV from the input, so replays reproduce.
            let mut rng = rand::rngs::StdRng::from_seed(input.r);
            let password = b"fuzz";
            let valid = if pem {
                keys::secret_key_to_encrypted_pkcs8_pem(
                    &ours,
                    password,
                    scheme,
                    &mut rng,
                    LineEnding::LF,
                )
                .expect("encode")
                .as_bytes()
                .to_vec()
            } else {
                keys::secret_key_to_encrypted_pkcs8_der(&ours, password, scheme, &mut rng)
                    .expect("encode")
                    .as_bytes()
                    .to_vec()
            };
            let bytes = apply(valid, &input.edits);
            let given: &[u8] = if wrong_password { b"fuzZ" } else { password };
            let decoded = if pem {
                let Ok(text) = core::str::from_utf8(&bytes) else {
                    return;
                };
                let Some(der) = pem_body(text) else {
                    return;
                };
                if max_der_integer(&der) > 4096 {
                    return;
                }
                keys::secret_key_from_pem_with_password(text, given)
            } else {
                if max_der_integer(&bytes) > 4096 {
                    return;
                }
                keys::secret_key_from_encrypted_pkcs8_der(&bytes, given)
            };
            match decoded {
                // CBC has no integrity: an edit may decrypt to another well-formed key, which
                // still has to be a key our encoders write and read back.
                Ok(sk) => check_secret(&sk, (!edited && !wrong_password).then_some(&ours)),
                Err(_) => assert!(edited || wrong_password, "refused a valid encrypted key"),
            }
        }
        Decoder::CiphertextDer { len } | Decoder::Ciphertext { len, .. } => {
            let (ours, _) = secret(&input.secret);
            let dk = DecryptingKey::new(ours);
            let msg: Vec<u8> = (0..=len).map(|i| i ^ input.r[0]).collect();
            // k from the signature bytes: deterministic per input, so replays reproduce.
            let layout = match input.decoder {
                Decoder::Ciphertext { layout, .. } => {
                    Some(Layout::ALL[usize::from(layout) % Layout::ALL.len()])
                }
                _ => None,
            };
            let Ok(valid) = dk.encrypting_key().encrypt_with_nonce(
                &input.s.into(),
                &msg,
                layout.unwrap_or(Layout::C1C3C2),
            ) else {
                return;
            };
            let valid = match layout {
                Some(_) => valid,
                None => pke::c1c3c2_to_der(&valid).expect("our own ciphertext"),
            };
            let bytes = apply(valid, &input.edits);
            let decrypted = match layout {
                Some(layout) => {
                    let _ = pke::convert(&bytes, layout, Layout::C1C3C2Compressed);
                    dk.decrypt(&bytes, layout)
                }
                None => {
                    if let Ok(raw) = pke::der_to_c1c3c2(&bytes) {
                        assert_eq!(pke::c1c3c2_to_der(&raw).ok().as_deref(), Some(&bytes[..]));
                    }
                    dk.decrypt_der(&bytes)
                }
            };
            match decrypted {
                Ok(pt) => assert_eq!(pt, msg, "an edited ciphertext decrypted to something else"),
                Err(_) => assert!(edited, "refused our own ciphertext"),
            }
        }
    }
});
