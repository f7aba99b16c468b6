//! A certificate for a new key, issued through `shangmi_pki::issue`, for the tests that
//! grow their own chains.

use shangmi_pki::issue::{self, CertParams, Profile};
use shangmi_pki::name::parse_dn;
use shangmi_pki::{Certificate, SecretKey, generate_key};

/// A new key and its certificate named `dn` under `profile`, valid for `days` days, issued
/// by `issuer` with `issuer_key`.
pub fn issue_new(
    issuer: &Certificate,
    issuer_key: &SecretKey,
    dn: &str,
    profile: Profile,
    days: u32,
) -> (SecretKey, Certificate) {
    let key = generate_key().unwrap();
    let params = CertParams::new(parse_dn(dn).unwrap(), profile, days);
    let cert = issue::issue(issuer, issuer_key, &key.public_key(), &params).unwrap();
    (key, cert)
}
