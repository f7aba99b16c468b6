//! Differential tests against the `openssl` command line (OpenSSL 3.0 in CI): our requests,
//! certificates and chains verified by `openssl req -verify` / `openssl verify` with
//! `-vfyopt distid:1234567812345678`, OpenSSL-made SM2 requests and chains verified by
//! ours, and CMS where OpenSSL 3.0 handles SM2 at all. Skipped, with a message, when no
//! `openssl` binary runs.
#![allow(clippy::unwrap_used, clippy::cloned_ref_to_slice_refs)]

use der::{Decode, Encode};
use shangmi_pki::cms::{self, Oids, SignOptions, SignatureForm, Signer};
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_pki::pem::{certificates, request, to_pem};
use shangmi_pki::verify::{Options, Purpose, VerifyError, verify_chain};
use shangmi_pki::{Certificate, SecretKey, generate_key, req};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/chain.rs"]
mod support;
use support::{Chain, chain};
#[path = "support/openssl.rs"]
mod cli;
use cli::{DISTID, openssl, request as their_request, self_signed, sign_request, verify};
#[path = "support/cms.rs"]
mod recorded;
use recorded::check_recorded;
#[path = "support/issue.rs"]
mod issuing;
use issuing::issue_new;

fn openssl_available() -> bool {
    match Command::new("openssl").arg("version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            eprintln!("SKIPPED: no `openssl` command line found; differential test not run");
            false
        }
    }
}

fn write(dir: &Path, name: &str, data: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

fn cert_pem(c: &Certificate) -> String {
    to_pem("CERTIFICATE", &c.to_der().unwrap()).unwrap()
}

fn key_pem(k: &SecretKey) -> String {
    shangmi_sm2::keys::secret_key_to_pkcs8_pem(k, Default::default(), der::pem::LineEnding::LF)
        .unwrap()
        .to_string()
}

/// A new key and its certificate under the chain's intermediate, valid for 10 days.
fn leaf(c: &Chain, dn: &str, profile: Profile) -> (SecretKey, Certificate) {
    issue_new(&c.inter, &c.inter_key, dn, profile, 10)
}

/// A temporary directory and our chain for a test against `openssl`; `None` (the test
/// skipped, with a message) when no `openssl` runs.
fn setup() -> Option<(tempfile::TempDir, Chain)> {
    openssl_available().then(|| (tempfile::tempdir().unwrap(), our_chain()))
}

/// [`setup`] and a leaf of `dn` under `profile` issued by its intermediate ([`leaf`]).
fn setup_leaf(
    dn: &str,
    profile: Profile,
) -> Option<(tempfile::TempDir, Chain, SecretKey, Certificate)> {
    let (dir, c) = setup()?;
    let (key, cert) = leaf(&c, dn, profile);
    Some((dir, c, key, cert))
}

fn our_chain() -> Chain {
    let names = [
        "/C=CN/O=shangmi/CN=shangmi root",
        "/C=CN/O=shangmi/CN=shangmi intermediate",
    ];
    chain(
        |dn, p| CertParams::new(parse_dn(dn).unwrap(), p, 30),
        names,
        Some(0),
    )
}

#[test]
fn diff_openssl_our_request_verifies() {
    let Some((dir, _)) = setup() else {
        return;
    };
    let key = generate_key().unwrap();
    let csr = req::create_request(
        &key,
        &parse_dn("/C=CN/O=shangmi/CN=req.example.cn").unwrap(),
        &[San::Dns("req.example.cn".into())],
        None,
    )
    .unwrap();
    write(
        dir.path(),
        "req.csr",
        to_pem("CERTIFICATE REQUEST", &csr.to_der().unwrap()).unwrap(),
    );
    let (ok, out) = openssl(
        dir.path(),
        &[
            "req", "-verify", "-noout", "-in", "req.csr", "-vfyopt", DISTID,
        ],
    );
    // OpenSSL 3.0's `req -verify` exits 0 either way: the verdict is in the text
    assert!(ok && out.contains("verify OK"), "{out}");
    // the default ID is what makes it verify: another ID fails
    let (_, out) = openssl(
        dir.path(),
        &[
            "req",
            "-verify",
            "-noout",
            "-in",
            "req.csr",
            "-vfyopt",
            "distid:0000",
        ],
    );
    assert!(out.contains("verify failure"), "{out}");
    let (_, text) = openssl(dir.path(), &["req", "-noout", "-text", "-in", "req.csr"]);
    assert!(text.contains("DNS:req.example.cn"), "{text}");
}

#[test]
fn diff_openssl_our_chain_verifies() {
    let Some((dir, c)) = setup() else {
        return;
    };
    let p = dir.path();
    write(p, "root.pem", cert_pem(&c.root));
    write(p, "inter.pem", cert_pem(&c.inter));
    let mk = |profile, cn: &str, sans: Vec<San>| {
        let key = generate_key().unwrap();
        let mut params = CertParams::new(parse_dn(cn).unwrap(), profile, 10);
        params.sans = sans;
        issue::issue(&c.inter, &c.inter_key, &key.public_key(), &params).unwrap()
    };
    let server = mk(
        Profile::TlsServer,
        "/CN=www.example.cn",
        vec![San::Dns("www.example.cn".into())],
    );
    write(p, "server.pem", cert_pem(&server));
    // OpenSSL 3.0's `verify -vfyopt distid:…` gives the ID to the target certificate
    // only: the intermediate's signature is then checked without it and fails ("error 7
    // at 1 depth lookup"), for OpenSSL's own chains too. So each link is checked on its
    // own: the intermediate against the root, the leaf against the intermediate as a
    // partial-chain trust anchor.
    let (ok, out) = verify(p, "root.pem", &[], "inter.pem");
    assert!(ok && out.contains("OK"), "{out}");
    let verify = |extra: &[&str], leaf: &str| {
        let mut args = vec!["-partial_chain"];
        args.extend_from_slice(extra);
        verify(p, "inter.pem", &args, leaf)
    };
    let (ok, out) = verify(
        &[
            "-purpose",
            "sslserver",
            "-verify_hostname",
            "www.example.cn",
        ],
        "server.pem",
    );
    assert!(ok && out.contains("OK"), "{out}");
    let (ok, out) = verify(&["-verify_hostname", "other.example.cn"], "server.pem");
    assert!(!ok, "{out}");
    let (ok, out) = verify(&["-purpose", "sslclient"], "server.pem");
    assert!(!ok, "{out}");
    // TLCP pair, client
    for (i, profile) in [Profile::TlcpSign, Profile::TlcpEnc, Profile::TlsClient]
        .into_iter()
        .enumerate()
    {
        let cert = mk(profile, "/C=CN/O=shangmi/CN=tlcp.example.cn", vec![]);
        let name = format!("leaf{i}.pem");
        write(p, &name, cert_pem(&cert));
        let (ok, out) = verify(&[], &name);
        assert!(ok, "{profile:?}: {out}");
    }
    // pathlen 0 on the intermediate: a CA under it breaks the chain (OpenSSL cannot be
    // asked: the sub-CA's signature fails first, see above)
    let (sub_key, sub) = issue_new(
        &c.inter,
        &c.inter_key,
        "/CN=sub",
        Profile::Ca { path_len: None },
        10,
    );
    let (_, deep) = issue_new(&sub, &sub_key, "/CN=deep", Profile::TlsClient, 10);
    assert_eq!(
        verify_chain(
            &deep,
            &[sub, c.inter.clone()],
            &[c.root.clone()],
            &Options::now(Purpose::Any)
        ),
        Err(VerifyError::PathLenExceeded { depth: 2 })
    );
    let _ = c.root_key;
}

/// OpenSSL makes the SM2 keys, the request and the chain (CA, intermediate with pathlen,
/// leaf with SAN); ours verifies the request and the chain and issues from the request.
#[test]
fn diff_openssl_their_request_and_chain_verified_by_us() {
    let Some((dir, c)) = setup() else {
        return;
    };
    let p = dir.path();
    for k in ["ca.key", "inter.key", "leaf.key"] {
        cli::run(
            p,
            &[
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                "ec_paramgen_curve:SM2",
                "-out",
                k,
            ],
        );
    }
    write(
        p,
        "ca.ext",
        "basicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n",
    );
    write(
        p,
        "inter.ext",
        "basicConstraints=critical,CA:true,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n",
    );
    write(
        p,
        "leaf.ext",
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:leaf.example.cn\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n",
    );
    self_signed(
        p,
        "ca.key",
        "/C=CN/O=OpenSSL/CN=OpenSSL SM2 root",
        "30",
        "ca.crt",
    );
    for (name, subj, ca, days_serial) in [
        (
            "inter",
            "/C=CN/O=OpenSSL/CN=OpenSSL SM2 intermediate",
            "ca",
            ["20", "2"],
        ),
        (
            "leaf",
            "/C=CN/O=OpenSSL/CN=leaf.example.cn",
            "inter",
            ["10", "3"],
        ),
    ] {
        let (key, csr) = (format!("{name}.key"), format!("{name}.csr"));
        their_request(p, &key, subj, &csr);
        let (ext, crt) = (format!("{name}.ext"), format!("{name}.crt"));
        sign_request(p, &csr, ca, &ext, days_serial, &crt);
    }
    // their request: our verifier takes it, and we issue from it
    let csr = request(&std::fs::read(p.join("leaf.csr")).unwrap()).unwrap();
    let public = req::verify_request(&csr).unwrap();
    assert!(req::verify_request_with_id(&csr, b"not the default").is_err());
    let ours = issue::issue_from_request(
        &c.inter,
        &c.inter_key,
        &csr,
        &CertParams::new(parse_dn("/CN=x").unwrap(), Profile::TlsServer, 5),
    )
    .unwrap();
    assert_eq!(
        shangmi_pki::verify::sm2_public_key(ours.tbs_certificate().subject_public_key_info()),
        Some(public)
    );
    // their chain
    let root = certificates(&std::fs::read(p.join("ca.crt")).unwrap()).unwrap();
    let inter = certificates(&std::fs::read(p.join("inter.crt")).unwrap()).unwrap();
    let leaf = certificates(&std::fs::read(p.join("leaf.crt")).unwrap()).unwrap();
    let opts = Options::now(Purpose::TlsServer).with_host("leaf.example.cn");
    assert_eq!(
        verify_chain(&leaf[0], &inter, &root, &opts).unwrap().len(),
        3
    );
    assert_eq!(
        verify_chain(&leaf[0], &inter, &root, &Options::now(Purpose::TlsClient)),
        Err(VerifyError::WrongExtendedKeyUsage)
    );
    assert_eq!(
        verify_chain(
            &leaf[0],
            &inter,
            &root,
            &Options::now(Purpose::Any).with_id(b"other")
        ),
        Err(VerifyError::BadSignature { depth: 0 })
    );
    // and OpenSSL agrees on its own chain, link by link (see diff_openssl_our_chain_verifies)
    for (ca, extra, cert) in [
        ("ca.crt", &[][..], "inter.crt"),
        ("inter.crt", &["-partial_chain"][..], "leaf.crt"),
    ] {
        let (ok, out) = verify(p, ca, extra, cert);
        assert!(ok, "{cert}: {out}");
    }
    let (ok, _) = verify(p, "ca.crt", &["-untrusted", "inter.crt"], "leaf.crt");
    assert!(
        !ok,
        "OpenSSL now verifies a 3-level SM2 chain in one call: update the notes"
    );
}

/// Checks that `openssl cms` with `op` (then `-binary -in msg.txt -outform DER -out out`,
/// then `tail`) fails in `dir` with "illegal zero content": OpenSSL 3.0's CMS code has no
/// SM2 setup for what `doing` names ("signs", "encrypts").
fn cms_refused(dir: &Path, op: &[&str], tail: &[&str], out: &str, doing: &str) {
    let io = ["-binary", "-in", "msg.txt", "-outform", "DER", "-out", out];
    let args: Vec<&str> = [&["cms"][..], op, &io, tail].concat();
    let (ok, text) = openssl(dir, &args);
    assert!(
        !ok && text.contains("illegal zero content"),
        "OpenSSL now {doing} SM2 CMS: {text}"
    );
}

/// What OpenSSL 3.0's `cms` makes of SM2: it cannot sign or encrypt with an SM2 key (its
/// CMS code has no SM2 signature or key-transport setup: "illegal zero content" when
/// writing), and it verifies SM2 signatures with an empty ID instead of the default one
/// (with signed attributes) or over plain SM3 of the content (without): ours in those two
/// forms ([`SignatureForm::ZaEmptyId`], [`SignatureForm::PlainSm3`]) verify there.
/// This test pins those facts (so a newer OpenSSL that fixes them is noticed) and checks
/// what does interoperate: OpenSSL parses our SignedData and EnvelopedData (RFC 5652 OIDs),
/// prints the content of our SignedData with `-noverify`, and verifies the certificates
/// embedded in it.
#[test]
fn diff_openssl_cms() {
    let Some((dir, c, key, cert)) = setup_leaf("/CN=cms signer", Profile::TlcpSign) else {
        return;
    };
    let p = dir.path();
    write(p, "root.pem", cert_pem(&c.root));
    write(p, "signer.pem", cert_pem(&cert));
    write(p, "signer.key", key_pem(&key));
    write(p, "msg.txt", b"hello CMS\n");
    let msg = std::fs::read(p.join("msg.txt")).unwrap();
    // our SignedData of `msg` with the RFC 5652 OIDs and the other `options`
    let sign = |options: SignOptions| {
        let signer = Signer {
            cert: &cert,
            key: &key,
            chain: std::slice::from_ref(&c.inter),
        };
        let options = SignOptions {
            oids: Oids::Rfc5652,
            ..options
        };
        cms::sign(&msg, &[signer], &options).unwrap()
    };
    let signed = sign(SignOptions::default());
    write(p, "signed.p7", &signed);
    let (ok, out) = openssl(
        p,
        &[
            "cms",
            "-cmsout",
            "-print",
            "-inform",
            "DER",
            "-in",
            "signed.p7",
        ],
    );
    assert!(ok && out.contains("sm3"), "{out}");
    // `cms -verify` of `input` (DER) without the certificate check, the content to `out`
    let cms_verify = |input: &str, out: &str| {
        openssl(
            p,
            &[
                "cms",
                "-verify",
                "-noverify",
                "-binary",
                "-inform",
                "DER",
                "-in",
                input,
                "-out",
                out,
            ],
        )
    };
    // `cms -decrypt` of `input` (DER) with the signer's key, the content to `out`
    let cms_decrypt = |input: &str, out: &str| {
        openssl(
            p,
            &[
                "cms",
                "-decrypt",
                "-binary",
                "-inform",
                "DER",
                "-in",
                input,
                "-recip",
                "signer.pem",
                "-inkey",
                "signer.key",
                "-out",
                out,
            ],
        )
    };
    // OpenSSL 3.0 checks SM2 signatures in CMS with an empty ID (no way to pass
    // distid to `cms`): our default-ID signature fails there, as it must
    let (ok, out) = cms_verify("signed.p7", "out.txt");
    assert!(
        !ok && out.contains("verification failure"),
        "OpenSSL now verifies SM2 CMS: {out}"
    );
    // what it does verify: Z_A over an empty ID with signed attributes, plain SM3 of the
    // content without them (the forms OpenSSL 3.6 writes, tests/data/openssl_cms_*.der)
    for (name, form, signed_attributes) in [
        ("empty-id.p7", SignatureForm::ZaEmptyId, true),
        ("plain.p7", SignatureForm::PlainSm3, false),
    ] {
        let der = sign(SignOptions {
            signed_attributes,
            form,
            ..SignOptions::default()
        });
        write(p, name, &der);
        let (ok, out) = cms_verify(name, "v.txt");
        assert!(ok, "{name}: {out}");
        assert_eq!(std::fs::read(p.join("v.txt")).unwrap(), msg);
    }
    // it cannot sign with an SM2 key
    let op = [
        "-sign",
        "-signer",
        "signer.pem",
        "-inkey",
        "signer.key",
        "-md",
        "sm3",
    ];
    cms_refused(p, &op, &[], "theirs.p7", "signs");
    // our EnvelopedData (sm2-3 key transport, SM4-CBC) decrypts in OpenSSL
    let enc = cms::encrypt(&msg, &[cert.clone(), c.inter.clone()], Oids::Rfc5652).unwrap();
    write(p, "enc.p7", &enc);
    let (ok, out) = cms_decrypt("enc.p7", "dec.txt");
    assert!(ok, "{out}");
    assert_eq!(std::fs::read(p.join("dec.txt")).unwrap(), msg);
    // with the GM/T 0010 content types (1.2.156.10197.6.1.4.2.x) OpenSSL refuses the message
    let gm = cms::encrypt(&msg, &[cert.clone()], Oids::GmT0010).unwrap();
    write(p, "gm.p7", &gm);
    let (ok, _) = cms_decrypt("gm.p7", "gm.txt");
    assert!(!ok);
    // it cannot encrypt to an SM2 certificate
    cms_refused(
        p,
        &["-encrypt", "-sm4-cbc"],
        &["signer.pem"],
        "theirenc.p7",
        "encrypts",
    );
    let _ = Certificate::from_der(&c.root.to_der().unwrap()).unwrap();
}

/// PKCS#12 both ways: ours read by `openssl pkcs12` (key and certificates come out), and
/// OpenSSL 3's default export (PBES2 AES-256-CBC bags, HMAC-SHA-256 MAC) read by ours; a
/// wrong password fails on both sides.
#[test]
fn diff_openssl_pkcs12() {
    let Some((dir, c, key, cert)) = setup_leaf("/CN=p12", Profile::TlsClient) else {
        return;
    };
    let p = dir.path();
    let ours =
        shangmi_pki::pkcs12::export(&cert, &key, std::slice::from_ref(&c.inter), "pa55").unwrap();
    write(p, "ours.p12", &ours);
    // `openssl pkcs12` reads ours with the password `pass`: key and certificates to all.pem
    let read_ours = |pass: &str| {
        openssl(
            p,
            &[
                "pkcs12", "-in", "ours.p12", "-passin", pass, "-nodes", "-out", "all.pem",
            ],
        )
    };
    let (ok, out) = read_ours("pass:pa55");
    assert!(ok, "{out}");
    let pem = std::fs::read_to_string(p.join("all.pem")).unwrap();
    assert_eq!(pem.matches("BEGIN CERTIFICATE").count(), 2, "{pem}");
    let k =
        shangmi_sm2::keys::secret_key_from_pem(&pem[pem.find("-----BEGIN PRIVATE KEY").unwrap()..])
            .unwrap();
    assert_eq!(k.to_bytes(), key.to_bytes());
    let (ok, _) = read_ours("pass:wrong");
    assert!(!ok);
    // theirs
    write_pair(p, &key, &cert, &c.inter);
    theirs_read_by_ours(p, &[], &key, &cert, &c.inter);
    // ours round-trips
    let back = shangmi_pki::pkcs12::import(&ours, "pa55").unwrap();
    assert_eq!(back.cert, cert);
    assert!(shangmi_pki::pkcs12::import(&ours, "pa56").is_err());
}

/// SignedData written by OpenSSL 3.6.3 (the vendored build of the `openssl` crate, through
/// `CMS_sign` + `CMS_add1_signer(.., EVP_sm3(), CMS_BINARY [| CMS_NOATTR])` in a scratch
/// program; Debian's 3.0 cannot sign SM2 CMS) with an SM2 key and self-signed certificate
/// made by `openssl req -x509 -sm3`: without signed attributes it signs plain SM3 of the
/// content (no Z_A), with them Z_A over an empty ID; both name SM2-with-SM3
/// (1.2.156.10197.1.501) and the RFC 5652 content types. Ours takes both with no option,
/// and says which form; the strict standard form refuses them.
#[test]
fn diff_openssl_cms_recorded() {
    let signer = certificates(include_bytes!("data/openssl_cms_signer.pem")).unwrap();
    // 2027-01-01, inside the certificate's validity (2026-11-29 .. 2126-11-05)
    let opts = Options::at(1_798_761_600, Purpose::CmsSign);
    for (der, form) in [
        (
            &include_bytes!("data/openssl_cms_noattr.der")[..],
            SignatureForm::PlainSm3,
        ),
        (
            &include_bytes!("data/openssl_cms_attr.der")[..],
            SignatureForm::ZaEmptyId,
        ),
    ] {
        let v = check_recorded(der, form, &signer, &opts, b"hello from OpenSSL 3.6\n");
        assert_eq!(v.signers, signer);
        assert!(cms::verify_with(der, None, &[], &signer, &opts, SignatureForm::Standard).is_err());
    }
}

/// An SM2 key encrypted by OpenSSL 3.6.3 (the vendored build, `PKCS5_pbe2_set_iv_ex(
/// EVP_sm4_cbc(), 2048, .., NID_hmacWithSM3)` in a scratch program; `openssl pkcs8 -topk8
/// -v2 sm4-cbc -v2prf hmacWithSM3` in 3.x): PBKDF2 with the PRF 1.2.156.10197.1.401.3.1
/// (NULL parameters, no key length) and SM4-CBC, password "secret". Both our readers take
/// it; our writer's default names the same PRF, and OpenSSL 3.6 read that back (checked by
/// hand with the same program: Debian's 3.0 and GmSSL cannot).
#[test]
fn diff_openssl_pkcs8_hmac_sm3_recorded() {
    let pem = include_str!("data/openssl36_pbkdf2_hmacsm3_sm4cbc.pem");
    let prf = [
        0x06, 0x0a, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x03, 0x01,
    ];
    let der = shangmi_pki::pem::der_documents(pem.as_bytes(), &["ENCRYPTED PRIVATE KEY"]).unwrap();
    assert!(der[0].windows(prf.len()).any(|w| w == prf));
    let a = shangmi_sm2::keys::secret_key_from_pem_with_password(pem, b"secret").unwrap();
    let b = shangmi_pki::pkcs8::secret_key_from_pem(pem.as_bytes(), b"secret").unwrap();
    assert_eq!(a.to_bytes(), b.to_bytes());
    // the key OpenSSL encrypted (`openssl ecparam -name SM2 -genkey`), its public point
    assert_eq!(
        hex::encode(a.public_key().to_sec1_bytes()),
        concat!(
            "040ce003bca41bf72cdb56e231a4d349f89fc8b7625f7323540225ff42a94c904a",
            "018c850538f96beb4e436abd437a9198ed96911dce0b5ca4bedf8ed0815479d1"
        )
    );
    assert!(shangmi_sm2::keys::secret_key_from_pem_with_password(pem, b"Secret").is_err());
}

/// Legacy PKCS#12 in every PBE pair `openssl pkcs12 -export -legacy` can write here
/// (Debian's 3.0): keys under 3DES, 2DES, RC2-40 and RC2-128, certificates under the same,
/// an HMAC-SHA-1 MAC; ours reads each with the right password only.
#[test]
fn diff_openssl_pkcs12_legacy() {
    let Some((dir, c, key, cert)) = setup_leaf("/CN=legacy", Profile::TlsClient) else {
        return;
    };
    let p = dir.path();
    write_pair(p, &key, &cert, &c.inter);
    for (keypbe, certpbe) in [
        ("PBE-SHA1-3DES", "PBE-SHA1-RC2-40"),
        ("PBE-SHA1-2DES", "PBE-SHA1-RC2-128"),
        ("PBE-SHA1-RC2-40", "PBE-SHA1-3DES"),
        ("PBE-SHA1-RC2-128", "PBE-SHA1-2DES"),
    ] {
        let legacy = ["-legacy", "-keypbe", keypbe, "-certpbe", certpbe];
        theirs_read_by_ours(p, &legacy, &key, &cert, &c.inter);
    }
}

/// Writes `k.pem`, `c.pem` and `inter.pem` in `p` for `openssl pkcs12 -export`.
fn write_pair(p: &Path, key: &SecretKey, cert: &Certificate, inter: &Certificate) {
    write(p, "k.pem", key_pem(key));
    write(p, "c.pem", cert_pem(cert));
    write(p, "inter.pem", cert_pem(inter));
}

/// `openssl pkcs12 -export` (with `extra` options) of the files [`write_pair`] wrote, read
/// by ours: the key, the certificate and the chain come out under the right password, and
/// a wrong one fails.
fn theirs_read_by_ours(
    p: &Path,
    extra: &[&str],
    key: &SecretKey,
    cert: &Certificate,
    inter: &Certificate,
) {
    let mut args = vec!["pkcs12", "-export"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[
        "-inkey",
        "k.pem",
        "-in",
        "c.pem",
        "-certfile",
        "inter.pem",
        "-passout",
        "pass:pa55",
        "-out",
        "theirs.p12",
    ]);
    let (ok, out) = openssl(p, &args);
    assert!(ok, "{extra:?}: {out}");
    let file = std::fs::read(p.join("theirs.p12")).unwrap();
    let got = shangmi_pki::pkcs12::import(&file, "pa55").unwrap();
    assert_eq!(got.key.to_bytes(), key.to_bytes(), "{extra:?}");
    assert_eq!(&got.cert, cert);
    assert_eq!(got.chain, vec![inter.clone()]);
    assert!(shangmi_pki::pkcs12::import(&file, "pa56").is_err());
}
