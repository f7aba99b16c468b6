extern crate std;

use std::{string::ToString, vec::Vec};

use super::*;

/// The rules every family follows, checked on one.
fn rules<B: Family + core::str::FromStr<Err = BackendError<B>>>() {
    let all = B::ALL;
    assert_eq!(
        all.last(),
        Some(&B::PORTABLE),
        "{}: portable last",
        B::ALGORITHM
    );
    for (i, b) in all.iter().enumerate() {
        assert!(
            all[..i].iter().all(|o| o != b && o.name() != b.name()),
            "{}: `{b}` listed twice",
            B::ALGORITHM
        );
        assert_eq!(b.name().parse::<B>(), Ok(*b));
        assert_eq!(b.to_string(), b.name());
    }
    assert_eq!("no-such".parse::<B>(), Err(BackendError::UnknownName));

    let available: Vec<B> = Available::<B>::all().map(Available::get).collect();
    assert!(available.contains(&B::PORTABLE), "{}", B::ALGORITHM);
    // Best first, in the order of ALL.
    assert_eq!(Available::<B>::best().get(), available[0]);
    assert_eq!(Available::<B>::best().get(), available[0], "cached answer");
    let positions: Vec<usize> = available
        .iter()
        .map(|a| all.iter().position(|b| b == a).unwrap_or(usize::MAX))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]));
    for &b in all {
        assert_eq!(Available::check(b).is_some(), available.contains(&b));
        assert_eq!(
            Available::require(b).map(Available::get),
            if available.contains(&b) {
                Ok(b)
            } else {
                Err(BackendError::Unavailable(b))
            }
        );
    }
    assert_eq!(Available::<B>::portable().get(), B::PORTABLE);
    // A forced build offers the forced backend (if the CPU has it) and the portable one.
    if let Some(forced) = B::FORCED {
        assert!(available.iter().all(|&b| b == forced || b == B::PORTABLE));
    }
}

#[test]
fn every_family_follows_the_rules() {
    rules::<sm4::Backend>();
    rules::<sm3::Backend>();
    rules::<ghash::Backend>();
    rules::<xts::Backend>();
    rules::<sm2_field::Backend>();
    rules::<sm2_scan::Backend>();
    rules::<sm2_lanes::Backend>();
    rules::<zuc::Backend>();
    rules::<zuc_many::Backend>();
    rules::<sm9_field::Backend>();
}

#[test]
fn soft_forces_the_portable_backend_of_every_family() {
    let forced = [
        sm4::Backend::FORCED.map(|b| b.name()),
        sm3::Backend::FORCED.map(|b| b.name()),
        ghash::Backend::FORCED.map(|b| b.name()),
        xts::Backend::FORCED.map(|b| b.name()),
        sm2_field::Backend::FORCED.map(|b| b.name()),
        sm2_scan::Backend::FORCED.map(|b| b.name()),
        sm2_lanes::Backend::FORCED.map(|b| b.name()),
        zuc::Backend::FORCED.map(|b| b.name()),
        zuc_many::Backend::FORCED.map(|b| b.name()),
        sm9_field::Backend::FORCED.map(|b| b.name()),
    ];
    if cfg!(shangmi_backend = "soft") {
        assert_eq!(
            forced,
            [
                Some("soft"),
                Some("soft"),
                Some("soft"),
                Some("soft"),
                Some("portable"),
                Some("portable"),
                Some("portable"),
                Some("soft"),
                Some("one-by-one"),
                Some("portable"),
            ]
        );
        assert_eq!(
            best_of_every_family().map(|(_, name)| name),
            [
                "soft",
                "soft",
                "soft",
                "soft",
                "portable",
                "portable",
                "portable",
                "soft",
                "one-by-one",
                "portable"
            ]
        );
    }
}

#[test]
fn errors_say_what() {
    assert_eq!(
        BackendError::Unavailable(sm4::Backend::GfniAvx512).to_string(),
        "SM4 backend `gfni-avx512` is not available on this CPU or build"
    );
    assert_eq!(
        sm3::BackendError::UnknownName.to_string(),
        "unknown SM3 backend name"
    );
    assert_eq!(
        std::format!("{:?}", Available::<sm2_scan::Backend>::portable()),
        "Available(portable)"
    );
}

/// The probes (not the forced build's answer) against std's own.
#[cfg(target_arch = "x86_64")]
#[test]
fn x86_probes_agree_with_std() {
    use private::Sealed;
    use std::is_x86_feature_detected as has;
    let sm4 = |b: sm4::Backend| b.cpu_has();
    assert_eq!(
        sm4(sm4::Backend::GfniAvx512),
        has!("avx512f") && has!("avx512bw") && has!("avx512vl") && has!("gfni")
    );
    assert_eq!(sm4(sm4::Backend::GfniAvx2), has!("avx2") && has!("gfni"));
    assert_eq!(
        sm4(sm4::Backend::AesniAvx2),
        has!("avx2") && has!("aes") && has!("ssse3")
    );
    assert_eq!(
        sm4(sm4::Backend::VaesAvx2),
        has!("avx2") && has!("aes") && has!("ssse3") && has!("vaes")
    );
    assert_eq!(
        sm3::Backend::Avx2.cpu_has(),
        has!("avx2") && has!("bmi1") && has!("bmi2")
    );
    assert_eq!(
        sm2_field::Backend::Adx.cpu_has(),
        has!("adx") && has!("bmi2")
    );
    assert!(sm2_field::Backend::Base.cpu_has());
    assert_eq!(sm2_scan::Backend::Avx2.cpu_has(), has!("avx2"));
    assert_eq!(
        sm2_lanes::Backend::Ifma.cpu_has(),
        has!("avx512f") && has!("avx512vl") && has!("avx512ifma")
    );
    assert_eq!(
        zuc::Backend::GfniAvx512.cpu_has(),
        has!("gfni")
            && has!("avx512f")
            && has!("avx512bw")
            && has!("avx512vbmi")
            && has!("aes")
            && has!("ssse3")
            && has!("sse4.1")
            && has!("pclmulqdq")
    );
    assert_eq!(
        zuc::Backend::AesniSse.cpu_has(),
        has!("aes") && has!("ssse3") && has!("sse4.1") && has!("pclmulqdq")
    );
    assert_eq!(
        zuc_many::Backend::Avx512x8.cpu_has(),
        has!("avx512f")
            && has!("avx512vl")
            && has!("avx2")
            && has!("aes")
            && has!("ssse3")
            && has!("sse4.1")
            && has!("pclmulqdq")
    );
    assert_eq!(
        zuc_many::Backend::Avx2x8.cpu_has(),
        has!("avx2") && has!("aes") && has!("ssse3") && has!("sse4.1") && has!("pclmulqdq")
    );
    assert_eq!(
        sm9_field::Backend::Adx.cpu_has(),
        has!("adx") && has!("bmi2")
    );
    assert_eq!(
        xts::Backend::Avx512.cpu_has(),
        has!("avx512f") && has!("avx512bw")
    );
    assert_eq!(
        ghash::Backend::Pclmulqdq.cpu_has(),
        has!("pclmulqdq") && has!("ssse3") && has!("sse4.1")
    );
    assert_eq!(
        ghash::Backend::VpclmulqdqAvx2.cpu_has(),
        has!("avx2") && has!("vpclmulqdq") && has!("pclmulqdq") && has!("ssse3") && has!("sse4.1")
    );
}

/// Forcing names are unique across families: `--cfg shangmi_backend="NAME"` and the speed
/// command's `--backend NAME` pick one family's backend (the portable names `soft` and
/// `portable` excepted: they force every family whose portable backend has that name).
#[test]
fn names_are_unique_across_families() {
    fn names<B: Family>() -> Vec<(&'static str, &'static str)> {
        B::ALL
            .iter()
            .filter(|&&b| b != B::PORTABLE)
            .map(|b| (b.name(), B::ALGORITHM))
            .collect()
    }
    let mut all = names::<sm4::Backend>();
    all.extend(names::<sm3::Backend>());
    all.extend(names::<ghash::Backend>());
    all.extend(names::<xts::Backend>());
    all.extend(names::<sm2_field::Backend>());
    all.extend(names::<sm2_scan::Backend>());
    all.extend(names::<sm2_lanes::Backend>());
    all.extend(names::<zuc::Backend>());
    all.extend(names::<zuc_many::Backend>());
    all.extend(names::<sm9_field::Backend>());
    for (i, (name, family)) in all.iter().enumerate() {
        for (other, other_family) in &all[..i] {
            assert_ne!(name, other, "{family} and {other_family}");
        }
        assert!(!["soft", "portable"].contains(name), "{family}: `{name}`");
    }
}

#[test]
fn a_cell_holds_what_it_is_given() {
    static CELL: BackendCell<sm9_field::Backend> = BackendCell::new();
    assert_eq!(CELL.get(), Available::best(), "best until set");
    for b in Available::<sm9_field::Backend>::all() {
        CELL.set(b);
        assert_eq!(CELL.get(), b);
    }
    CELL.set(Available::portable());
    assert_eq!(CELL.get().get(), sm9_field::Backend::Portable);
}
