//! `shangmi sm2 keygen|pubkey|sign|verify|encrypt|decrypt`: SM2 (GB/T 32918) keys,
//! signatures and public-key encryption on files, interoperable with `openssl pkey`,
//! `openssl dgst -sm3 -sign/-verify`, `openssl pkeyutl` and GmSSL's `sm2*` commands.

pub(crate) mod keyfile;
pub(crate) mod keyread;
mod pke;
mod sig;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::Failure;

/// `shangmi sm2`.
pub type Args = crate::Group<Op>;

/// The subcommands of `shangmi sm2`.
#[derive(Subcommand)]
pub enum Op {
    /// Generate a private key (PKCS#8 PEM; the public key with --pubout).
    Keygen(keyfile::KeygenArgs),
    /// Write the public key (SPKI) of a private key.
    Pubkey(keyfile::PubkeyArgs),
    /// Sign a file or standard input (DER signature by default).
    Sign(sig::SignArgs),
    /// Verify a signature: prints "Verified OK" and exits 0, or exits 1.
    Verify(sig::VerifyArgs),
    /// Encrypt to a public key (ASN.1 C1C3C2 ciphertext by default).
    Encrypt(pke::EncryptArgs),
    /// Decrypt with a private key.
    Decrypt(pke::DecryptArgs),
}

/// Options for reading a private key that may be encrypted.
#[derive(clap::Args)]
pub struct KeyIn {
    /// Private key: PKCS#8 or SEC1, PEM or DER, possibly encrypted PKCS#8; or, where the
    /// command signs or decrypts, a key in a device:
    /// sdf:LIBRARY?index=N[&key=sign|enc][&pin-env=VAR], skf:LIBRARY?app=A&container=C[&key=…]
    /// or an RFC 7512 pkcs11: URI.
    #[allow(rustdoc::broken_intra_doc_links)] // `--help` text: its brackets are not links
    #[arg(long, value_name = "KEY")]
    pub key: PathBuf,
    /// Passphrase of an encrypted key, as OpenSSL takes it: pass:TEXT, env:VAR, file:PATH
    /// (first line) or stdin. Without it, an encrypted key asks on the terminal.
    #[arg(long, value_name = "SPEC")]
    pub passin: Option<String>,
}

impl KeyIn {
    /// The key, from its file or its device (`role`: the pair a device URI means when it
    /// does not say).
    pub fn open(
        &self,
        role: Option<shangmi_sdf::KeyUsage>,
    ) -> Result<crate::keyuri::AnyKey, Failure> {
        crate::keyuri::KeyUri::of_path(&self.key)?.open_any(role, self.passin.as_deref())
    }
}

/// The signer's distinguishing identifier.
#[derive(clap::Args)]
pub struct Id {
    /// Distinguishing ID hashed into Z_A (GB/T 32918.2). The default is the standard's
    /// 1234567812345678, as GmSSL and gmsm use; OpenSSL 3 uses an empty ID unless told:
    /// give `-sigopt distid:1234567812345678` to `openssl dgst -sm3` (when signing and
    /// when verifying), or `--id ''` here.
    #[arg(
        long,
        value_name = "ID",
        default_value = "1234567812345678",
        conflicts_with = "id_hex"
    )]
    pub id: String,
    /// The distinguishing ID in hexadecimal (for IDs that are not text).
    #[arg(long, value_name = "HEX")]
    pub id_hex: Option<String>,
}

impl Id {
    /// The identifier's bytes.
    pub fn bytes(&self) -> Result<Vec<u8>, Failure> {
        match &self.id_hex {
            Some(hex) => crate::hexstr::decode(hex.trim().as_bytes())
                .ok_or_else(|| Failure::usage("--id-hex: not hexadecimal")),
            None => Ok(self.id.as_bytes().to_vec()),
        }
    }
}

/// Runs `shangmi sm2`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    match &args.op {
        Op::Keygen(a) => keyfile::keygen(a),
        Op::Pubkey(a) => keyfile::pubkey(a),
        Op::Sign(a) => sig::sign(a),
        Op::Verify(a) => sig::verify(a),
        Op::Encrypt(a) => pke::encrypt(a),
        Op::Decrypt(a) => pke::decrypt(a),
    }
}
