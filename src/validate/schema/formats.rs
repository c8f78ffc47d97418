//! The string formats the API server parses when it decodes an object: quantities
//! (`resource.ParseQuantity`), times (`metav1.Time`, RFC 3339) and `[]byte` (standard base64).

/// `resource.ParseQuantity` accepts `s` (the parser is the CEL quantity library's).
pub fn is_quantity(s: &str) -> bool {
    super::cel_library::is_quantity(s)
}

/// RFC 3339 as Go's `time.Parse(time.RFC3339, …)` reads it (fraction optional, `Z` or an
/// offset). The empty string is `metav1.Time`'s zero value and valid.
pub fn is_date_time(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    let b = s.as_bytes();
    let digits = |from: usize, n: usize| {
        b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_digit)
    };
    let num = |from: usize, n: usize| -> u32 { s[from..from + n].parse().unwrap_or(u32::MAX) };
    if !(digits(0, 4)
        && b.get(4) == Some(&b'-')
        && digits(5, 2)
        && b.get(7) == Some(&b'-')
        && digits(8, 2)
        && b.get(10) == Some(&b'T')
        && digits(11, 2)
        && b.get(13) == Some(&b':')
        && digits(14, 2)
        && b.get(16) == Some(&b':')
        && digits(17, 2))
    {
        return false;
    }
    if !(1..=12).contains(&num(5, 2))
        || !(1..=31).contains(&num(8, 2))
        || num(11, 2) > 23
        || num(14, 2) > 59
        || num(17, 2) > 59
    {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &s[i..] {
        "Z" => true,
        zone => {
            let z = zone.as_bytes();
            z.len() == 6
                && matches!(z[0], b'+' | b'-')
                && z[1..3].iter().all(u8::is_ascii_digit)
                && z[3] == b':'
                && z[4..6].iter().all(u8::is_ascii_digit)
                && zone[1..3].parse::<u32>().is_ok_and(|h| h <= 23)
                && zone[4..6].parse::<u32>().is_ok_and(|m| m <= 59)
        }
    }
}

/// Standard base64 with padding, as Go's `encoding/json` decodes a `[]byte` (line breaks are
/// skipped).
pub fn is_base64(s: &str) -> bool {
    crate::go::json::decode_bytes(s).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities() {
        for ok in [
            "1", "500m", "1.5Gi", "0.5", "+1", "-1", "1e3", "1E-2", "100Mi", ".5", "5.", "2k",
        ] {
            assert!(is_quantity(ok), "{ok}");
        }
        // A suffix alone is zero to Go's parser: "Gi" is valid.
        assert!(is_quantity("Gi"));
        for bad in ["", "1GB", "1gi", "1.2.3", "1e", "one", "1 Gi", "1Ki1"] {
            assert!(!is_quantity(bad), "{bad}");
        }
    }

    #[test]
    fn date_times() {
        for ok in [
            "2024-01-02T03:04:05Z",
            "2024-01-02T03:04:05.123456Z",
            "2024-01-02T03:04:05+02:00",
            "",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2024-01-02",
            "2024-01-02 03:04:05Z",
            "2024-13-02T03:04:05Z",
            "2024-01-02T03:04:05",
            "yesterday",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }

    #[test]
    fn base64() {
        assert!(is_base64("aGVsbG8="));
        assert!(is_base64("aGVs\nbG8="));
        assert!(is_base64(""));
        assert!(!is_base64("hello!"));
        assert!(!is_base64("aGVsbG8"));
    }
}
