//! Checksum lines as GNU coreutils writes and reads them, as bytes (file names need not be
//! UTF-8).
//!
//! Written: `HASH  NAME` (`HASH *NAME` in binary mode) or, with `--tag`, the BSD form
//! `SM3 (NAME) = HASH`. A name holding a backslash, newline or carriage return is escaped
//! (`\\`, `\n`, `\r`) and the line starts with a backslash, unless lines end with NUL
//! (`-z`). Read back by `--check` with the same rules (coreutils 9, `digest.c`).

/// The algorithm's name in BSD-style lines.
const TAG: &[u8] = b"SM3";

/// `name` escaped for a checksum line, and whether it needed escaping.
pub fn escape(name: &[u8]) -> (Vec<u8>, bool) {
    if !name.iter().any(|b| matches!(b, b'\\' | b'\n' | b'\r')) {
        return (name.to_vec(), false);
    }
    let mut out = Vec::with_capacity(name.len() + 2);
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b => out.push(b),
        }
    }
    (out, true)
}

/// How output lines look.
#[derive(Clone, Copy)]
pub struct Style {
    /// BSD form (`--tag`).
    pub tag: bool,
    /// `*` before the name (`-b`).
    pub binary: bool,
    /// End lines with NUL and do not escape names (`-z`).
    pub zero: bool,
}

/// Appends the output line for `digest` of `name`, with its terminator, to `out`.
pub fn format(out: &mut Vec<u8>, style: Style, digest: &[u8], name: &[u8]) {
    let (name, escaped) = if style.zero {
        (name.to_vec(), false)
    } else {
        escape(name)
    };
    if escaped {
        out.push(b'\\');
    }
    let hash = crate::hexstr::encode(digest);
    if style.tag {
        out.extend_from_slice(TAG);
        out.extend_from_slice(b" (");
        out.extend_from_slice(&name);
        out.extend_from_slice(b") = ");
        out.extend_from_slice(hash.as_bytes());
    } else {
        out.extend_from_slice(hash.as_bytes());
        out.extend_from_slice(if style.binary { b" *" } else { b"  " });
        out.extend_from_slice(&name);
    }
    out.push(if style.zero { b'\0' } else { b'\n' });
}

/// A parsed `--check` line: the expected digest and the file name.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry {
    /// The digest the line states.
    pub digest: [u8; 32],
    /// The file to check (unescaped).
    pub name: Vec<u8>,
}

/// Parses one line of a checksum file (without its line end); `None` if it is not a
/// properly formatted SM3 line.
pub fn parse(line: &[u8]) -> Option<Entry> {
    let start = line.iter().position(|b| !matches!(b, b' ' | b'\t'))?;
    let line = &line[start..];
    let (line, escaped) = match line.strip_prefix(b"\\") {
        Some(rest) => (rest, true),
        None => (line, false),
    };
    let (hash, name) = parse_bsd(line).or_else(|| parse_gnu(line))?;
    let name = if escaped {
        unescape(name)?
    } else {
        name.to_vec()
    };
    if name.is_empty() {
        return None;
    }
    Some(Entry {
        digest: parse_hex(hash)?,
        name,
    })
}

/// `SM3 (NAME) = HASH` (the space before `(` is optional, as GNU reads it).
fn parse_bsd(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = line.strip_prefix(TAG)?;
    let rest = rest.strip_prefix(b" ").unwrap_or(rest).strip_prefix(b"(")?;
    let close = rest.windows(4).rposition(|w| w == b") = ")?;
    Some((&rest[close + 4..], &rest[..close]))
}

/// `HASH  NAME`, `HASH *NAME` (or a single space or tab before the name).
fn parse_gnu(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let (hash, rest) = line.split_at_checked(64)?;
    let rest = rest
        .strip_prefix(b" ")
        .or_else(|| rest.strip_prefix(b"\t"))?;
    let name = match rest.first() {
        Some(b' ' | b'*') => &rest[1..],
        _ => rest,
    };
    Some((hash, name))
}

/// Undoes [`escape`]; `None` for any other backslash sequence.
fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut bytes = name.iter();
    while let Some(&b) = bytes.next() {
        if b == b'\\' {
            out.push(match bytes.next()? {
                b'\\' => b'\\',
                b'n' => b'\n',
                b'r' => b'\r',
                _ => return None,
            });
        } else {
            out.push(b);
        }
    }
    Some(out)
}

/// 64 hexadecimal digits (either case) as 32 bytes.
fn parse_hex(hash: &[u8]) -> Option<[u8; 32]> {
    crate::hexstr::decode_array(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    // SM3("abc"), GB/T 32905-2016 Appendix A.1.
    const ABC: &str = "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0";

    fn digest() -> [u8; 32] {
        parse_hex(ABC.as_bytes()).unwrap()
    }

    fn line(tag: bool, binary: bool, zero: bool, name: &[u8]) -> Vec<u8> {
        let mut out = vec![];
        format(&mut out, Style { tag, binary, zero }, &digest(), name);
        out
    }

    #[test]
    fn lines_round_trip_through_parse() {
        let names: [&[u8]; 7] = [
            b"a.txt",
            b"x y",
            b"back\\slash",
            b"new\nline",
            b"cr\r",
            b"(p) = q",
            b"\xff\xfe",
        ];
        for tag in [false, true] {
            for binary in [false, true] {
                for name in names {
                    let line = line(tag, binary, false, name);
                    let entry = parse(&line[..line.len() - 1]);
                    assert_eq!(
                        entry,
                        Some(Entry {
                            digest: digest(),
                            name: name.to_vec()
                        }),
                        "{line:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn gnu_and_bsd_forms() {
        // (tag, binary, zero, name, the line)
        let cases: [(bool, bool, bool, &[u8], String); 5] = [
            (false, false, false, b"f", format!("{ABC}  f\n")),
            (false, true, false, b"f", format!("{ABC} *f\n")),
            (true, false, false, b"f", format!("SM3 (f) = {ABC}\n")),
            (false, false, false, b"a\nb", format!("\\{ABC}  a\\nb\n")),
            (false, false, true, b"a\nb", format!("{ABC}  a\nb\0")),
        ];
        for (tag, binary, zero, name, want) in cases {
            assert_eq!(line(tag, binary, zero, name), want.as_bytes(), "{want:?}");
        }
    }

    #[test]
    fn malformed_lines_are_rejected() {
        let parse = |s: String| parse(s.as_bytes());
        let upper = ABC.to_uppercase();
        assert!(
            parse(format!("{upper}  f")).is_some(),
            "upper-case hex is accepted"
        );
        assert!(
            parse(format!("  {ABC} f")).is_some(),
            "leading blanks, one space"
        );
        assert_eq!(parse(format!("{}  f", &ABC[..63])), None, "short hash");
        assert_eq!(parse(format!("{ABC}0  f")), None, "long hash");
        assert_eq!(parse(format!("{}g  f", &ABC[..63])), None, "not hex");
        assert_eq!(parse(format!("{ABC}  ")), None, "no name");
        assert_eq!(parse(format!("\\{ABC}  a\\qb")), None, "unknown escape");
        assert_eq!(
            parse(format!("SHA256 (f) = {ABC}")),
            None,
            "other algorithm"
        );
        assert_eq!(parse(format!("SM3 (f) {ABC}")), None, "BSD form without =");
    }
}
