//! The process-wide module on a normal build: the power-on tests pass, the handle serves
//! keys and random numbers, and every test names its origin.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use rand_core::TryRng;
use shangmi_selftest::{Error, KAT_COUNT, State};

#[test]
fn power_on_tests_pass_and_the_module_serves() {
    assert_eq!(shangmi_selftest::state(), State::Untested);
    assert_eq!(shangmi_selftest::module().unwrap_err(), Error::NotTested);
    let report = shangmi_selftest::run();
    assert!(report.passed(), "{:?}", report.first_failure());
    assert_eq!(report.results().len(), KAT_COUNT);
    let names: Vec<_> = report.results().iter().map(|r| r.name).collect();
    for want in [
        "sm3",
        "hmac-sm3",
        "sm4-encrypt",
        "sm4-decrypt",
        "sm4-gcm",
        "sm2-sign",
        "sm2-verify",
        "sm2-encrypt-decrypt",
        "zuc-128",
        "zuc-eea3",
        "zuc-eia3",
        "sm9-sign",
        "sm9-verify",
        "drbg-sm3",
        "drbg-sm4",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert!(report.results().iter().all(|r| !r.origin.is_empty()));
    assert_eq!(shangmi_selftest::state(), State::Operational);

    let module = shangmi_selftest::module().unwrap();
    let mut rng = module.system_rng().unwrap();
    let key = module.generate_sm2_key(&mut rng).unwrap();
    shangmi_sm2::keys::check_key_pair(&key, &key.public_key()).unwrap();
    let (a, b) = (rng.try_next_u64().unwrap(), rng.try_next_u64().unwrap());
    assert_ne!(a, b);
    module.check().unwrap();
}
