//! `cert crl`: a CA's certificate revocation list, and the CRL files `cert verify --crl`
//! and the TLS/TLCP commands' `--crl` read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use shangmi_pki::crl::{self, Crl, CrlParams, Reason, Revoked};

use super::make::CaIn;
use super::{load_certs, named};
use crate::Failure;
use crate::files::{Output, read_path};

/// Revocation reasons (RFC 5280 §5.3.1); OpenSSL's spellings are accepted too.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ReasonName {
    /// unspecified (0).
    Unspecified,
    /// keyCompromise (1).
    #[value(alias = "keyCompromise")]
    KeyCompromise,
    /// cACompromise (2).
    #[value(alias = "CACompromise")]
    CaCompromise,
    /// affiliationChanged (3).
    #[value(alias = "affiliationChanged")]
    AffiliationChanged,
    /// superseded (4).
    Superseded,
    /// cessationOfOperation (5).
    #[value(alias = "cessationOfOperation")]
    CessationOfOperation,
    /// certificateHold (6): suspended; verifiers refuse it as revoked.
    #[value(alias = "certificateHold")]
    CertificateHold,
    /// privilegeWithdrawn (9).
    #[value(alias = "privilegeWithdrawn")]
    PrivilegeWithdrawn,
    /// aACompromise (10).
    #[value(alias = "AACompromise")]
    AaCompromise,
}

impl ReasonName {
    fn reason(self) -> Reason {
        match self {
            ReasonName::Unspecified => Reason::Unspecified,
            ReasonName::KeyCompromise => Reason::KeyCompromise,
            ReasonName::CaCompromise => Reason::CaCompromise,
            ReasonName::AffiliationChanged => Reason::AffiliationChanged,
            ReasonName::Superseded => Reason::Superseded,
            ReasonName::CessationOfOperation => Reason::CessationOfOperation,
            ReasonName::CertificateHold => Reason::CertificateHold,
            ReasonName::PrivilegeWithdrawn => Reason::PrivilegeWithdrawn,
            ReasonName::AaCompromise => Reason::AaCompromise,
        }
    }
}

/// Options of `cert crl`.
#[derive(clap::Args)]
#[command(after_help = "\
Example: shangmi cert crl --ca ca.crt --ca-key ca.key --revoke leaf.crt --revoke 0x5a01 \
--reason key-compromise --out ca.crl
Writes an X.509 v2 CRL (PEM, `X509 CRL`) signed with SM2-with-SM3 under the default ID \
1234567812345678, with a CRL number (default: the current unix time, so that each new CRL \
has a larger one) and the CA's key identifier. A CRL lists every revoked certificate: give \
--previous with the last CRL to keep its entries. `openssl crl -in FILE -noout -text` reads it.")]
pub struct CrlArgs {
    #[command(flatten)]
    ca: CaIn,
    /// A certificate to revoke: a certificate file of this CA (every certificate in it),
    /// or a serial number in hex (0x5a01, 5A:01); repeatable. An existing file wins.
    #[arg(long, value_name = "CERT|SERIAL")]
    revoke: Vec<String>,
    /// The reason recorded for the certificates of this run's --revoke (none: no reason
    /// code).
    #[arg(long, value_enum, value_name = "REASON")]
    reason: Option<ReasonName>,
    /// An earlier CRL of this CA whose entries to keep (its signature must verify).
    #[arg(long, value_name = "FILE")]
    previous: Option<PathBuf>,
    /// Days until nextUpdate (when verifiers stop accepting the CRL).
    #[arg(long, value_name = "N", default_value_t = 30)]
    days: u32,
    /// The CRL number (default: the current unix time).
    #[arg(long, value_name = "N")]
    number: Option<u64>,
    /// Where to write the CRL (PEM).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// A serial number in hex: `0x` prefix and `:` separators allowed, at most 20 bytes.
fn parse_serial(s: &str) -> Option<Vec<u8>> {
    let digits: String = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s)
        .chars()
        .filter(|&c| c != ':')
        .collect();
    if digits.is_empty() || digits.len() > 40 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let padded = if digits.len() % 2 == 1 {
        format!("0{digits}")
    } else {
        digits
    };
    crate::hexstr::decode(padded.as_bytes())
}

/// `cert crl`.
pub fn crl(args: &CrlArgs) -> Result<ExitCode, Failure> {
    let (ca, ca_key) = args.ca.load()?;
    let mut params = CrlParams::new(args.days);
    if let Some(n) = args.number {
        params.number = n;
    }
    if let Some(prev) = &args.previous {
        for old in load_crls(prev)? {
            old.verify_signature(&ca)
                .map_err(|e| named(prev, format!("not a CRL of this CA: {e}")))?;
            params.revoked.extend(old.revoked().iter().cloned());
        }
    }
    let reason = args.reason.map(ReasonName::reason);
    for r in &args.revoke {
        let path = Path::new(r);
        let serials = if path.is_file() {
            let certs = load_certs(path)?;
            let mut out = Vec::new();
            for c in certs {
                if c.tbs_certificate().issuer() != ca.tbs_certificate().subject() {
                    return Err(named(path, "not issued by this CA"));
                }
                out.push(c.tbs_certificate().serial_number().as_bytes().to_vec());
            }
            out
        } else {
            vec![parse_serial(r).ok_or_else(|| {
                Failure::usage(format!(
                    "--revoke {r}: neither a certificate file nor a hex serial number"
                ))
            })?]
        };
        for s in serials {
            let entry = Revoked::now(&s, reason);
            // revoking again keeps the first entry (its date and reason)
            if !params.revoked.iter().any(|e| e.serial == entry.serial) {
                params.revoked.push(entry);
            }
        }
    }
    let list = crl::issue_crl(&ca, &ca_key, &params).map_err(|e| match e {
        shangmi_pki::Error::KeyMismatch => {
            named(&args.ca.ca_key, "not the key of the CA certificate")
        }
        e => Failure::new(format!("issuing the CRL: {e}")),
    })?;
    let pem = list
        .to_pem()
        .map_err(|e| Failure::new(format!("encoding the CRL: {e}")))?;
    let mut out = Output::create(Some(&args.out))?;
    out.write_all(pem.as_bytes())?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Every CRL of a file (DER, or PEM with one or more `X509 CRL` blocks).
pub fn load_crls(path: &Path) -> Result<Vec<Crl>, Failure> {
    let bytes = read_path(path)?;
    Crl::parse_all(&bytes).map_err(|e| named(path, format!("not a CRL: {e}")))
}

/// Every CRL of every file given.
pub fn load_all_crls(paths: &[PathBuf]) -> Result<Vec<Crl>, Failure> {
    let mut out = Vec::new();
    for p in paths {
        out.extend(load_crls(p)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::parse_serial;

    #[test]
    fn serials() {
        assert_eq!(parse_serial("0x5a01"), Some(vec![0x5a, 0x01]));
        assert_eq!(parse_serial("5A:01"), Some(vec![0x5a, 0x01]));
        assert_eq!(parse_serial("abc"), Some(vec![0x0a, 0xbc]));
        assert_eq!(parse_serial(""), None);
        assert_eq!(parse_serial("0x"), None);
        assert_eq!(parse_serial("leaf.pem"), None);
        assert_eq!(parse_serial(&"1".repeat(41)), None);
    }
}
