//! GM/T 0018 2012 against 2023: the function table by name (`SDF_FUNCTIONS`), the new
//! 2023 error code, and which edition a library follows, resolved on our test device
//! (`testdevice/sdf`: the 2012 functions our backend uses, the GmSSL
//! `SDF_InternalDecrypt_ECC` extension, and 2023's keyed hash `SDF_HMAC*`, which the
//! device ECDHE path needs).

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use shangmi_sdf::{
    Edition, LibraryFunctions, SDF_FUNCTIONS, SdfDevice, SdfError, SdrCode, Standing,
    library_functions,
};
use std::collections::HashSet;

fn count(pred: impl Fn(Standing) -> bool) -> usize {
    SDF_FUNCTIONS.iter().filter(|(_, s)| pred(*s)).count()
}

#[test]
fn the_table_matches_the_editions_function_counts() {
    let names: HashSet<_> = SDF_FUNCTIONS.iter().map(|(n, _)| *n).collect();
    assert_eq!(names.len(), SDF_FUNCTIONS.len(), "a name twice");
    // GM/T 0018-2023 chapter 6: 61 production functions (6.2–6.7: 8 + 16 + 7 + 20 + 6 + 4)
    // and 12 verification/debugging functions (6.8, table 16).
    assert_eq!(
        count(|s| matches!(s, Standing::Both | Standing::New2023)),
        61
    );
    assert_eq!(
        count(|s| matches!(s, Standing::Debug2023 | Standing::NewDebug2023)),
        12
    );
    // GM/T 0018-2012: 49 functions (device 8, keys 21, asymmetric 10, symmetric 3, hash 3,
    // files 4); 2023 removed 3 and moved 5 to 6.8.
    assert_eq!(
        count(|s| matches!(
            s,
            Standing::Both | Standing::Removed2023 | Standing::Debug2023
        )),
        49
    );
    assert_eq!(count(|s| s == Standing::Removed2023), 3);
    assert_eq!(count(|s| s == Standing::Debug2023), 5);
    // The HMAC functions (key handles) are 2023 additions; hashing with Z_A is in both.
    for (name, standing) in [
        ("SDF_HMACInit", Standing::New2023),
        ("SDF_HMACFinal", Standing::New2023),
        ("SDF_AuthEnc", Standing::New2023),
        ("SDF_HashInit", Standing::Both),
        ("SDF_ExternalKeyHMACInit", Standing::NewDebug2023),
        ("SDF_ExternalSign_ECC", Standing::Debug2023),
        ("SDF_ExchangeDigitEnvelopeBaseOnECC", Standing::Removed2023),
        ("SDF_InternalDecrypt_ECC", Standing::Extension),
    ] {
        assert!(SDF_FUNCTIONS.contains(&(name, standing)), "{name}");
    }
}

#[test]
fn the_test_device_has_2023s_keyed_hash_and_the_internal_decrypt_extension() {
    let f = library_functions(support::library()).unwrap();
    assert_eq!(f.edition(), Edition::Gmt0018_2023);
    assert_eq!(f.edition().to_string(), "GM/T 0018-2023");
    let exported: Vec<_> = f.exported.iter().map(|(n, _)| *n).collect();
    for name in [
        "SDF_OpenDevice",
        "SDF_GetPrivateKeyAccessRight",
        "SDF_ExportSignPublicKey_ECC",
        "SDF_InternalSign_ECC",
        "SDF_InternalVerify_ECC",
    ] {
        assert!(exported.contains(&name), "{name} in {exported:?}");
    }
    assert_eq!(
        f.with(Standing::Extension).collect::<Vec<_>>(),
        ["SDF_InternalDecrypt_ECC"]
    );
    assert_eq!(
        f.with(Standing::New2023).collect::<Vec<_>>(),
        ["SDF_HMACInit", "SDF_HMACUpdate", "SDF_HMACFinal"]
    );
    let missing: Vec<_> = f.missing_2023().collect();
    assert!(!missing.contains(&"SDF_HMACInit"), "{missing:?}");
    assert!(missing.contains(&"SDF_HashInit"), "{missing:?}");
    assert!(!missing.contains(&"SDF_InternalSign_ECC"), "{missing:?}");
    // The edition is read from the functions, not from StandardVersion, which this
    // device leaves at 1 (the 2023 edition's §5.3 table 2 sets 2, as the 2023 mapping
    // note quoted in `SDF_FUNCTIONS`' documentation has it).
    let info = SdfDevice::open(support::library()).unwrap().info().unwrap();
    assert_eq!(info.standard_version, 1);
    // A missing library is a typed error.
    assert!(matches!(
        library_functions("/nonexistent/libsdf.so"),
        Err(SdfError::Load(_))
    ));
}

#[test]
fn one_2023_production_function_makes_a_2023_library() {
    let only_2012 = LibraryFunctions {
        exported: SDF_FUNCTIONS
            .iter()
            .copied()
            .filter(|(_, s)| *s != Standing::New2023 && *s != Standing::NewDebug2023)
            .collect(),
    };
    assert_eq!(only_2012.edition(), Edition::Gmt0018_2012);
    // 6.8's debugging names alone do not make it 2023 (not for production use).
    let debug = LibraryFunctions {
        exported: vec![("SDF_ExternalKeyHMACInit", Standing::NewDebug2023)],
    };
    assert_eq!(debug.edition(), Edition::Gmt0018_2012);
    let with_hmac = LibraryFunctions {
        exported: vec![
            ("SDF_OpenDevice", Standing::Both),
            ("SDF_HMACInit", Standing::New2023),
        ],
    };
    assert_eq!(with_hmac.edition(), Edition::Gmt0018_2023);
    let all = LibraryFunctions {
        exported: SDF_FUNCTIONS.to_vec(),
    };
    assert_eq!(all.missing_2023().count(), 0);
    // GM/T 0018-2023's one new return code.
    assert_eq!(SdrCode::from_u32(0x0100_001F), SdrCode::UserId);
    assert_eq!(SdrCode::UserId.to_string(), "SDR_USERIDERR (0x0100001F)");
}
