//! The checks every recorded peer CMS signature gets (OpenSSL's, Tongsuo's).

use shangmi_pki::Certificate;
use shangmi_pki::cms::{self, SignatureForm, Verified};
use shangmi_pki::verify::Options;

/// `der`, which the peer signed in `form` over the attached `content` (starting "hello"),
/// verifies against `roots` with that content and that form found, verifies in `form`
/// alone, and fails once one bit of the content is flipped. Gives the verification's result
/// for the caller's own checks.
pub fn check_recorded(
    der: &[u8],
    form: SignatureForm,
    roots: &[Certificate],
    opts: &Options<'_>,
    content: &[u8],
) -> Verified {
    let v = cms::verify(der, None, &[], roots, opts).unwrap();
    assert_eq!(v.content, content);
    assert_eq!(v.forms, vec![form]);
    cms::verify_with(der, None, &[], roots, opts, form).unwrap();
    // one flipped bit in the content fails every form
    let mut bad = der.to_vec();
    let at = bad.windows(5).position(|w| w == b"hello").unwrap();
    bad[at] ^= 1;
    assert!(cms::verify(&bad, None, &[], roots, opts).is_err());
    v
}
