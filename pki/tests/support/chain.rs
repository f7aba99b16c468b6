//! A root and an intermediate CA issued through `shangmi_pki::issue`, shared by the tests
//! that need a chain (each names its own validity through `params`).

use shangmi_pki::issue::{self, CertParams, Profile};
use shangmi_pki::{Certificate, SecretKey, generate_key};

/// A root CA and an intermediate under it, with their keys.
pub struct Chain {
    pub root_key: SecretKey,
    pub root: Certificate,
    pub inter_key: SecretKey,
    pub inter: Certificate,
}

/// A chain with the subjects `[root, intermediate]`, the intermediate's path length
/// `inter_path_len`, each certificate's parameters from `params(subject, profile)`.
pub fn chain(
    params: impl Fn(&str, Profile) -> CertParams,
    [root_dn, inter_dn]: [&str; 2],
    inter_path_len: Option<u8>,
) -> Chain {
    let root_key = generate_key().unwrap();
    let root_params = params(root_dn, Profile::Ca { path_len: None });
    let root = issue::self_signed(&root_key, &root_params).unwrap();
    let inter_key = generate_key().unwrap();
    let inter_params = params(
        inter_dn,
        Profile::Ca {
            path_len: inter_path_len,
        },
    );
    let inter = issue::issue(&root, &root_key, &inter_key.public_key(), &inter_params).unwrap();
    Chain {
        root_key,
        root,
        inter_key,
        inter,
    }
}
