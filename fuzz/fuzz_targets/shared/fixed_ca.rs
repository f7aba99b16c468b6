//! The fixed CA the PKI targets (`crl`, `pki_parse`) check against: key `[7; 32]`, serial
//! 1, valid from 2023-11-14 to 2033-05-18, self-signed under the name each target gives.

use shangmi_pki::issue::{self, CertParams, Profile};
use shangmi_pki::{Certificate, SecretKey};

/// The CA's key, its certificate named `dn`, and the parameters it was issued with (a
/// target issuing a leaf changes the subject, profile and serial).
pub fn fixed_ca(dn: &str) -> (SecretKey, Certificate, CertParams) {
    let key = SecretKey::from_slice(&[7u8; 32]).expect("key");
    let name = shangmi_pki::name::parse_dn(dn).expect("name");
    let mut params = CertParams::new(name, Profile::Ca { path_len: None }, 30);
    params.not_before = 1_700_000_000;
    params.not_after = 2_000_000_000;
    params.serial = Some(vec![1]);
    let cert = issue::self_signed(&key, &params).expect("CA");
    (key, cert, params)
}
