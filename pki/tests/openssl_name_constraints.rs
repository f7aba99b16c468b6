//! Name constraints in chains made by the `openssl` command line (OpenSSL 3.0 in CI; the
//! test fails when no `openssl` runs): an intermediate with rfc822Name, iPAddress and
//! dNSName constraints (`openssl x509 -req -extfile` with `nameConstraints=`), leaves inside
//! and outside them; our verdict must agree with `openssl verify`'s.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use shangmi_pki::pem::certificates;
use shangmi_pki::verify::{Options, Purpose, VerifyError, verify_chain};

#[path = "support/openssl.rs"]
mod cli;
use cli::{request, run, self_signed, sign_request, verify};

#[test]
fn openssl_made_constrained_chain() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let w = |name: &str, text: &str| std::fs::write(d.join(name), text).unwrap();
    for k in ["ca", "inter", "leaf"] {
        run(
            d,
            &["genpkey", "-algorithm", "SM2", "-out", &format!("{k}.key")],
        );
    }
    self_signed(d, "ca.key", "/C=CN/O=NC/CN=NC root", "30", "ca.crt");
    w(
        "inter.ext",
        "basicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\n\
         nameConstraints=critical,permitted;email:.example.cn,permitted;IP:10.0.0.0/255.0.0.0,\
         permitted;DNS:example.cn,excluded;DNS:bad.example.cn,excluded;IP:10.9.0.0/255.255.0.0\n",
    );
    let sign = |csr: &str, ext: &str, ca: &str, out: &str| {
        sign_request(d, csr, ca, ext, ["20", "7"], out);
    };
    request(d, "inter.key", "/C=CN/O=NC/CN=NC inter", "inter.csr");
    sign("inter.csr", "inter.ext", "ca", "inter.crt");
    request(d, "leaf.key", "/C=CN/O=NC/CN=leaf", "leaf.csr");
    let roots = certificates(&std::fs::read(d.join("ca.crt")).unwrap()).unwrap();
    let inter = certificates(&std::fs::read(d.join("inter.crt")).unwrap()).unwrap();
    // An hour on: the leaves below are issued after this line, and OpenSSL sets their
    // notBefore to the second it signs them (all are valid for 30 days).
    let later = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    let opts = Options::at(later, Purpose::Any);
    // (SANs, within the constraints)
    let cases = [
        (
            "email:a@mail.example.cn,IP:10.1.2.3,DNS:www.example.cn",
            true,
        ),
        ("email:a@mail.example.com", false),
        ("email:a@example.cn", false),
        ("IP:11.1.2.3", false),
        ("IP:10.9.1.1", false),
        ("DNS:host.bad.example.cn", false),
        ("DNS:example.com", false),
    ];
    for (i, (san, inside)) in cases.iter().enumerate() {
        let ext = format!("leaf{i}.ext");
        w(
            &ext,
            &format!("keyUsage=critical,digitalSignature\nsubjectAltName={san}\n"),
        );
        let out = format!("leaf{i}.crt");
        sign("leaf.csr", &ext, "inter", &out);
        let leaf = &certificates(&std::fs::read(d.join(&out)).unwrap()).unwrap()[0];
        let ours = verify_chain(leaf, &inter, &roots, &opts);
        // OpenSSL 3.0 checks SM2 links one at a time (it loses the distid above the first
        // link, as diff_openssl.rs notes): the intermediate as a partial-chain anchor, whose
        // name constraints it still applies
        let (theirs, out) = verify(d, "inter.crt", &["-partial_chain"], &out);
        assert_eq!(theirs, *inside, "openssl on case {i} ({san}): {out}");
        if *inside {
            assert!(ours.is_ok(), "case {i} ({san}): {ours:?}");
        } else {
            assert_eq!(
                ours,
                Err(VerifyError::NameConstraintViolation { depth: 1 }),
                "case {i} ({san})"
            );
        }
    }
}
