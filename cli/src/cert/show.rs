//! `cert verify` and `cert show`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use der::{Decode, Encode};
use shangmi_pki::Certificate;
use shangmi_pki::name::display;
use shangmi_pki::verify::{Options, Purpose, verify_chain};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, NameConstraints,
    SubjectAltName, SubjectKeyIdentifier,
};

use super::{load_all, load_certs, named};
use crate::Failure;
use crate::files::{Output, read_path};

/// `--purpose`: what a chain is checked for, by the names [`Purpose::from_name`] reads.
pub fn purpose(name: &str) -> Result<Purpose, String> {
    Purpose::from_name(name).ok_or_else(|| {
        "not one of any, tls-server, tls-client, tlcp-sign, tlcp-enc, cms-sign".to_owned()
    })
}

/// Options of `cert verify`.
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Trusted root certificates (PEM, several in one file, or DER; repeatable).
    #[arg(long, value_name = "ROOTS", required = true)]
    ca: Vec<PathBuf>,
    /// Intermediate certificates that may complete the chain (repeatable).
    #[arg(long, value_name = "CHAIN")]
    untrusted: Vec<PathBuf>,
    /// What the certificate must be good for: any (no key-usage check), tls-server,
    /// tls-client, tlcp-sign, tlcp-enc or cms-sign.
    #[arg(long, value_name = "PURPOSE", default_value = "any", value_parser = purpose)]
    purpose: Purpose,
    /// A host name the certificate must name (SAN dNSName, or CN without SANs).
    #[arg(long, value_name = "NAME")]
    host: Option<String>,
    /// The signatures' distinguishing ID.
    #[arg(long, value_name = "ID", default_value = "1234567812345678")]
    id: String,
    /// Check validity at this unix time instead of now.
    #[arg(long, value_name = "SECONDS")]
    at_time: Option<u64>,
    /// CRLs (PEM or DER; repeatable): every certificate of the chain below the root must
    /// be covered by a CRL of its issuer that verifies and has not passed its nextUpdate,
    /// and must not be listed in it.
    #[arg(long, value_name = "FILE")]
    crl: Vec<PathBuf>,
    /// The certificate to verify (the first one of the file).
    #[arg(value_name = "CERT")]
    cert: PathBuf,
}

/// `cert verify`.
pub fn verify(args: &VerifyArgs) -> Result<ExitCode, Failure> {
    let mut certs = load_certs(&args.cert)?;
    let leaf = certs.remove(0);
    let roots = load_all(&args.ca)?;
    let mut untrusted = load_all(&args.untrusted)?;
    untrusted.extend(certs);
    let crls = super::crl::load_all_crls(&args.crl)?;
    let mut opts = match args.at_time {
        Some(t) => Options::at(t, args.purpose),
        None => Options::now(args.purpose),
    }
    .with_id(args.id.as_bytes())
    .with_crls(&crls);
    if let Some(h) = &args.host {
        opts = opts.with_host(h);
    }
    match verify_chain(&leaf, &untrusted, &roots, &opts) {
        Ok(_) => {
            println!("{}: OK", args.cert.display());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Err(named(&args.cert, format!("verification failed: {e}"))),
    }
}

/// Options of `cert show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// A certificate file (every certificate in it is shown) or a certificate request.
    #[arg(value_name = "CERT")]
    cert: PathBuf,
    /// Where to write the text (default: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn hex(bytes: &[u8], sep: &str) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(sep)
}

fn general_name(n: &GeneralName) -> String {
    match n {
        GeneralName::DnsName(d) => format!("DNS:{}", d.as_str()),
        GeneralName::Rfc822Name(e) => format!("email:{}", e.as_str()),
        GeneralName::IpAddress(ip) => {
            let b = ip.as_bytes();
            match (<[u8; 4]>::try_from(b), <[u8; 16]>::try_from(b)) {
                (Ok(a), _) => format!("IP:{}", std::net::IpAddr::from(a)),
                (_, Ok(a)) => format!("IP:{}", std::net::IpAddr::from(a)),
                _ => format!("IP:{}", hex(b, ":")),
            }
        }
        GeneralName::UniformResourceIdentifier(u) => format!("URI:{}", u.as_str()),
        GeneralName::DirectoryName(d) => format!("DirName:{}", display(d)),
        _ => "othername".to_owned(),
    }
}

fn extension_text(ext: &x509_cert::ext::Extension) -> String {
    let v = ext.extn_value.as_bytes();
    let id = ext.extn_id;
    let parsed = || -> Option<(String, String)> {
        use shangmi_pki::oid;
        Some(match id {
            _ if id == oid::BASIC_CONSTRAINTS => {
                let bc = BasicConstraints::from_der(v).ok()?;
                let mut s = format!("CA:{}", if bc.ca { "TRUE" } else { "FALSE" });
                if let Some(p) = bc.path_len_constraint {
                    s.push_str(&format!(", pathlen:{p}"));
                }
                ("Basic Constraints".into(), s)
            }
            _ if id == oid::KEY_USAGE => {
                let ku = KeyUsage::from_der(v).ok()?;
                let names: Vec<String> = ku.0.into_iter().map(|f| format!("{f:?}")).collect();
                ("Key Usage".into(), names.join(", "))
            }
            _ if id == oid::EXT_KEY_USAGE => {
                let eku = ExtendedKeyUsage::from_der(v).ok()?;
                let names: Vec<String> = eku
                    .0
                    .iter()
                    .map(|o| match *o {
                        _ if *o == oid::KP_SERVER_AUTH => "serverAuth".into(),
                        _ if *o == oid::KP_CLIENT_AUTH => "clientAuth".into(),
                        _ => o.to_string(),
                    })
                    .collect();
                ("Extended Key Usage".into(), names.join(", "))
            }
            _ if id == oid::SUBJECT_ALT_NAME => {
                let san = SubjectAltName::from_der(v).ok()?;
                let names: Vec<String> = san.0.iter().map(general_name).collect();
                ("Subject Alternative Name".into(), names.join(", "))
            }
            _ if id == oid::SUBJECT_KEY_IDENTIFIER => {
                let ski = SubjectKeyIdentifier::from_der(v).ok()?;
                ("Subject Key Identifier".into(), hex(ski.0.as_bytes(), ":"))
            }
            _ if id == oid::AUTHORITY_KEY_IDENTIFIER => {
                let aki = AuthorityKeyIdentifier::from_der(v).ok()?;
                let s = aki
                    .key_identifier
                    .map(|k| hex(k.as_bytes(), ":"))
                    .unwrap_or_default();
                ("Authority Key Identifier".into(), s)
            }
            _ if id == oid::NAME_CONSTRAINTS => {
                let nc = NameConstraints::from_der(v).ok()?;
                let list =
                    |t: &Option<Vec<x509_cert::ext::pkix::constraints::name::GeneralSubtree>>| {
                        t.iter()
                            .flatten()
                            .map(|s| general_name(&s.base))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                (
                    "Name Constraints".into(),
                    format!(
                        "permitted: {}; excluded: {}",
                        list(&nc.permitted_subtrees),
                        list(&nc.excluded_subtrees)
                    ),
                )
            }
            _ => return None,
        })
    };
    let critical = if ext.critical { " critical" } else { "" };
    match parsed() {
        Some((name, value)) => format!("            {name}:{critical}\n                {value}\n"),
        None => format!(
            "            {id}:{critical}\n                {}\n",
            hex(v, ":")
        ),
    }
}

fn algorithm(oid: &const_oid::ObjectIdentifier) -> String {
    use shangmi_pki::oid as o;
    match *oid {
        _ if *oid == o::SM2_WITH_SM3 => "SM2-with-SM3".into(),
        _ if *oid == o::EC_PUBLIC_KEY => "id-ecPublicKey".into(),
        _ if *oid == o::SM2 => "sm2".into(),
        _ => oid.to_string(),
    }
}

fn describe(cert: &Certificate) -> String {
    let tbs = cert.tbs_certificate();
    let mut s = String::new();
    let _ = writeln!(s, "Certificate:");
    let _ = writeln!(s, "    Version: {:?}", tbs.version());
    let _ = writeln!(
        s,
        "    Serial Number: {}",
        hex(tbs.serial_number().as_bytes(), ":")
    );
    let _ = writeln!(
        s,
        "    Signature Algorithm: {}",
        algorithm(&cert.signature_algorithm().oid)
    );
    let _ = writeln!(s, "    Issuer: {}", display(tbs.issuer()));
    let _ = writeln!(s, "    Validity");
    let _ = writeln!(s, "        Not Before: {}", tbs.validity().not_before);
    let _ = writeln!(s, "        Not After : {}", tbs.validity().not_after);
    let _ = writeln!(s, "    Subject: {}", display(tbs.subject()));
    let spki = tbs.subject_public_key_info();
    let curve = spki
        .algorithm
        .parameters
        .as_ref()
        .and_then(|p| p.decode_as::<const_oid::ObjectIdentifier>().ok())
        .map(|o| format!(" ({})", algorithm(&o)))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "    Public Key Algorithm: {}{curve}",
        algorithm(&spki.algorithm.oid)
    );
    let _ = writeln!(
        s,
        "        pub: {}",
        hex(spki.subject_public_key.raw_bytes(), ":")
    );
    if let Some(exts) = tbs.extensions() {
        let _ = writeln!(s, "    X509v3 extensions:");
        for e in exts {
            s.push_str(&extension_text(e));
        }
    }
    let _ = writeln!(
        s,
        "    Signature Value: {}",
        hex(cert.signature().raw_bytes(), ":")
    );
    s
}

fn describe_request(req: &shangmi_pki::CertReq) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Certificate Request:");
    let _ = writeln!(s, "    Subject: {}", display(&req.info.subject));
    let _ = writeln!(
        s,
        "    Signature Algorithm: {}",
        algorithm(&req.algorithm.oid)
    );
    let verdict = match shangmi_pki::req::verify_request(req) {
        Ok(_) => "OK (default ID)".to_owned(),
        Err(e) => format!("FAILED: {e}"),
    };
    let _ = writeln!(s, "    Self-signature: {verdict}");
    if let Ok(exts) = shangmi_pki::req::requested_extensions(req)
        && !exts.is_empty()
    {
        let _ = writeln!(s, "    Requested extensions:");
        for e in &exts {
            s.push_str(&extension_text(e));
        }
    }
    s
}

/// `cert show`.
pub fn show(args: &ShowArgs) -> Result<ExitCode, Failure> {
    let bytes = read_path(&args.cert)?;
    let text = match shangmi_pki::pem::certificates(&bytes) {
        Ok(certs) if !certs.is_empty() => certs.iter().map(describe).collect::<Vec<_>>().join("\n"),
        cert_err => match shangmi_pki::pem::request(&bytes) {
            Ok(req) => describe_request(&req),
            Err(_) => {
                let e = cert_err
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_else(|| "no certificate".into());
                return Err(named(&args.cert, e));
            }
        },
    };
    let mut out = Output::create(args.out.as_deref())?;
    out.write_all(text.as_bytes())?;
    out.commit()?;
    let _ = Certificate::to_der;
    Ok(ExitCode::SUCCESS)
}
