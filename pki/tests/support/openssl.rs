//! The `openssl` command line for the tests that check against it (OpenSSL 3.0 in CI):
//! one runner, and the steps that make and check an SM2 chain with it, each under the
//! default SM2 ID (`-sigopt`/`-vfyopt distid:1234567812345678`).

use std::path::Path;
use std::process::Command;

/// The default SM2 ID as OpenSSL's `-sigopt`/`-vfyopt` option.
pub const DISTID: &str = "distid:1234567812345678";

/// Runs openssl in `dir`; (success, stdout + stderr).
pub fn openssl(dir: &Path, args: &[&str]) -> (bool, String) {
    let o = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the `openssl` command line must run here");
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (o.status.success(), text)
}

/// Runs openssl in `dir`; it must succeed.
pub fn run(dir: &Path, args: &[&str]) {
    let (ok, out) = openssl(dir, args);
    assert!(ok, "openssl {args:?}: {out}");
}

/// `openssl req -x509`: a self-signed CA certificate `out` for the key file `key`.
pub fn self_signed(dir: &Path, key: &str, subj: &str, days: &str, out: &str) {
    run(
        dir,
        &[
            "req",
            "-new",
            "-x509",
            "-key",
            key,
            "-sm3",
            "-sigopt",
            DISTID,
            "-subj",
            subj,
            "-days",
            days,
            "-extensions",
            "v3_ca",
            "-out",
            out,
        ],
    );
}

/// `openssl req -new`: a request `out` for the key file `key`.
pub fn request(dir: &Path, key: &str, subj: &str, out: &str) {
    run(
        dir,
        &[
            "req", "-new", "-key", key, "-sm3", "-sigopt", DISTID, "-subj", subj, "-out", out,
        ],
    );
}

/// `openssl x509 -req`: the request `csr` signed by the CA `{ca}.crt`/`{ca}.key` with the
/// extensions in the file `ext`, written to `out`.
pub fn sign_request(
    dir: &Path,
    csr: &str,
    ca: &str,
    ext: &str,
    [days, serial]: [&str; 2],
    out: &str,
) {
    let (ca_crt, ca_key) = (format!("{ca}.crt"), format!("{ca}.key"));
    run(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            csr,
            "-CA",
            &ca_crt,
            "-CAkey",
            &ca_key,
            "-sm3",
            "-sigopt",
            DISTID,
            "-vfyopt",
            DISTID,
            "-days",
            days,
            "-set_serial",
            serial,
            "-extfile",
            ext,
            "-out",
            out,
        ],
    );
}

/// `openssl verify` of the certificate file `cert` against the trust file `ca`, with the
/// `extra` options (`-partial_chain` to trust an intermediate); (success, output).
pub fn verify(dir: &Path, ca: &str, extra: &[&str], cert: &str) -> (bool, String) {
    let mut args = vec!["verify", "-vfyopt", DISTID, "-CAfile", ca];
    args.extend_from_slice(extra);
    args.push(cert);
    openssl(dir, &args)
}
