//! `--backend NAME`: the families whose backend the table can force (SM4, ZUC, ZUC many,
//! SM9 field), the name parsed against every one of them (names are unique across
//! families; `soft` and `portable` name the portable backend of each family that calls it
//! so), and the header lines that say which backend each family runs.

use std::io::Write;
use std::str::FromStr;

use shangmi_dispatch::{Available, BackendError, Family, sm4, sm9_field, zuc, zuc_many};

/// What one `--backend NAME` forces: the backend of that name in each family that has one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forcing {
    sm4: Option<sm4::Backend>,
    zuc: Option<zuc::Backend>,
    zuc_many: Option<zuc_many::Backend>,
    sm9_field: Option<sm9_field::Backend>,
}

/// The backends available here of family `B`, best first, comma-separated.
fn available<B: Family>() -> String {
    Available::<B>::all()
        .map(|b| b.get().name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every forceable family's available backends, for error messages.
fn every_available() -> String {
    [
        (sm4::Backend::ALGORITHM, available::<sm4::Backend>()),
        (zuc::Backend::ALGORITHM, available::<zuc::Backend>()),
        (
            zuc_many::Backend::ALGORITHM,
            available::<zuc_many::Backend>(),
        ),
        (
            sm9_field::Backend::ALGORITHM,
            available::<sm9_field::Backend>(),
        ),
    ]
    .map(|(algorithm, names)| format!("{algorithm}: {names}"))
    .join("; ")
}

/// Family `B`'s backend called `name`, if it has one; an error if that backend cannot run
/// here.
fn named<B: Family + FromStr<Err = BackendError<B>>>(name: &str) -> Result<Option<B>, String> {
    match name.parse::<B>() {
        Err(_) => Ok(None),
        Ok(b) if Available::check(b).is_some() => Ok(Some(b)),
        Ok(_) => Err(format!(
            "{} backend `{name}` is not available on this CPU; available here: {}",
            B::ALGORITHM,
            every_available()
        )),
    }
}

/// Parses `--backend NAME`.
pub fn parse(name: &str) -> Result<Forcing, String> {
    let forcing = Forcing {
        sm4: named(name)?,
        zuc: named(name)?,
        zuc_many: named(name)?,
        sm9_field: named(name)?,
    };
    if forcing == Forcing::default() {
        return Err(format!(
            "no backend is called `{name}`; available here: {}",
            every_available()
        ));
    }
    Ok(forcing)
}

/// The backend each forceable family runs in this table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backends {
    /// SM4 (every SM4 row and the modes on it).
    pub sm4: sm4::Backend,
    /// ZUC single streams (the keystream, EEA3 and MAC rows).
    pub zuc: zuc::Backend,
    /// ZUC many streams (`eea3-many8`).
    pub zuc_many: zuc_many::Backend,
    /// The SM9 field (the SM9 rows).
    pub sm9_field: sm9_field::Backend,
}

impl Backends {
    /// The best backend of each family, except where a `--backend` names another (the last
    /// one naming a family wins).
    pub fn new(forcings: &[Forcing]) -> Backends {
        let mut chosen = Backends {
            sm4: sm4::Backend::best(),
            zuc: zuc::Backend::best(),
            zuc_many: zuc_many::Backend::best(),
            sm9_field: sm9_field::Backend::best(),
        };
        for f in forcings {
            chosen.sm4 = f.sm4.unwrap_or(chosen.sm4);
            chosen.zuc = f.zuc.unwrap_or(chosen.zuc);
            chosen.zuc_many = f.zuc_many.unwrap_or(chosen.zuc_many);
            chosen.sm9_field = f.sm9_field.unwrap_or(chosen.sm9_field);
        }
        chosen
    }

    /// The chosen backend's name and the available ones, if the table can force `algorithm`.
    fn forceable(&self, algorithm: &str) -> Option<(&'static str, String)> {
        fn pair<B: Family>(b: B) -> (&'static str, String) {
            (b.name(), available::<B>())
        }
        [
            pair(self.sm4),
            pair(self.zuc),
            pair(self.zuc_many),
            pair(self.sm9_field),
        ]
        .into_iter()
        .zip([
            sm4::Backend::ALGORITHM,
            zuc::Backend::ALGORITHM,
            zuc_many::Backend::ALGORITHM,
            sm9_field::Backend::ALGORITHM,
        ])
        .find(|&(_, a)| a == algorithm)
        .map(|(p, _)| p)
    }

    /// One line per family: the backend it runs here, and for the forceable ones the
    /// backends available here.
    pub fn header(&self, out: &mut impl Write) -> std::io::Result<()> {
        for (algorithm, best) in shangmi_dispatch::best_of_every_family() {
            match self.forceable(algorithm) {
                Some((name, available)) => writeln!(
                    out,
                    "{algorithm} backend: {name} (available here: {available}; pick one with --backend)"
                )?,
                None => writeln!(out, "{algorithm} backend: {best}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_force_their_family() {
        let soft = parse("soft").expect("soft runs everywhere");
        assert_eq!(soft.sm4, Some(sm4::Backend::Soft));
        assert_eq!(soft.zuc, Some(zuc::Backend::Soft));
        assert_eq!(soft.zuc_many, None);
        assert_eq!(soft.sm9_field, None);
        let portable = parse("portable").expect("portable runs everywhere");
        assert_eq!(portable.sm9_field, Some(sm9_field::Backend::Portable));
        assert_eq!(portable.sm4, None);
        let one = parse("one-by-one").expect("runs everywhere");
        let chosen = Backends::new(&[soft, one, portable]);
        assert_eq!(chosen.sm4, sm4::Backend::Soft);
        assert_eq!(chosen.zuc, zuc::Backend::Soft);
        assert_eq!(chosen.zuc_many, zuc_many::Backend::OneByOne);
        assert_eq!(chosen.sm9_field, sm9_field::Backend::Portable);
        let err = parse("no-such").unwrap_err();
        assert!(err.contains("no backend is called `no-such`"), "{err}");
        assert!(err.contains("ZUC many: "), "{err}");
        for b in zuc::Backend::ALL {
            assert_eq!(parse(b.name()).is_ok(), b.is_available(), "{b}");
        }
        for b in sm9_field::Backend::ALL {
            assert_eq!(parse(b.name()).is_ok(), b.is_available(), "{b}");
        }
    }

    #[test]
    fn the_header_names_every_family() {
        let mut out = Vec::new();
        Backends::new(&[])
            .header(&mut out)
            .expect("writes to memory");
        let text = String::from_utf8(out).expect("ASCII");
        for algorithm in ["SM4", "SM3", "ZUC", "ZUC many", "SM9 field"] {
            assert!(
                text.contains(&format!("\n{algorithm} backend: "))
                    || text.starts_with(&format!("{algorithm} backend: ")),
                "{text}"
            );
        }
        assert!(
            text.contains(&format!("ZUC backend: {}", zuc::Backend::best())),
            "{text}"
        );
    }
}
