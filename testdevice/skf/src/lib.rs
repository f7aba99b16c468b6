//! A software GM/T 0016 (SKF) USB key for tests: the C functions `shangmi-skf` calls,
//! implemented over shangmi's own SM2, SM3 and certificate issuing. A test fixture, never
//! linked into a library.
//!
//! - One device, `shangmi-skf-0`, with two applications, `SHANGMI` and `LOCKOUT` (the
//!   second for lockout tests, so they do not lock the first), each with the user PIN
//!   `SHANGMI_TESTSKF_PIN` (default `12345678`) and its own retry counter (6 attempts;
//!   a correct PIN resets it; at 0 the PIN is locked: `SAR_PIN_LOCKED`; the counters live
//!   as long as the library stays loaded). Login is per
//!   open application handle; private-key operations without it are
//!   `SAR_USER_NOT_LOGGED_IN`.
//! - Containers (in both applications): `tlcp-client`, an ECC container with a sign pair
//!   and an encryption pair derived from `SHANGMI_TESTSKF_SEED` (default
//!   `shangmi test skf`) as d = SM3(seed ‖ label ‖ counter), the first valid scalar, and
//!   their TLCP certificates (CN=skf client, profiles tlcp-sign and tlcp-enc) issued at
//!   first use under a test CA (CN=shangmi test SKF CA, key from the seed too), whose
//!   certificate the non-standard export `ShangmiTestSkf_CaCertificate` returns: made in
//!   memory rather than read from files, the same bytes on every load (fixed serials,
//!   valid 2020–2049, deterministic signatures), as a real key keeps them; `empty`
//!   (type 0, no keys); and the faults: `garbage` holds `tlcp-client`'s keys but signs
//!   with r = n (out of range), reports a decrypted length 1000 bytes longer than the
//!   plaintext, claims a sign certificate longer than the buffer it was given, and has no
//!   encryption certificate; `offcurve` exports a point that is not on the curve.
//! - `SKF_ECCDecrypt` is in `decrypt.rs`; `testdevice/skf-nodecrypt` builds the same
//!   device without it.
//!
//! Structures as GM/T 0016 defines them (field layout from GmSSL 3.3's `skf.h`).

#[path = "../../common.rs"]
mod common;
mod decrypt;
mod device;
#[path = "../../ecc.rs"]
mod ecc;
